/**
 * What each service reads from its environment, taken from its own zod schema (the built `dist/config.js`), so
 * the deployment files are checked against the code rather than against a list kept by hand.
 */
import type { ZodType } from 'zod';
import { gatewayEnvSchema } from '../../../apps/gateway/dist/config.js';
import { catalogEnvSchema } from '../../../apps/catalog/dist/config.js';
import { schedulerEnvSchema } from '../../../apps/scheduler/dist/config.js';
import { executorEnvSchema } from '../../../apps/executor/dist/config.js';
import { monitoringEnvSchema } from '../../../apps/monitoring/dist/config.js';
import { dispatcherEnvSchema } from '../../../apps/webhook-dispatcher/dist/config.js';

const SCHEMAS: Record<string, ZodType> = {
  gateway: gatewayEnvSchema,
  catalog: catalogEnvSchema,
  scheduler: schedulerEnvSchema,
  executor: executorEnvSchema,
  monitoring: monitoringEnvSchema,
  'webhook-dispatcher': dispatcherEnvSchema,
};

export interface ServiceEnv {
  /** Every variable the service reads. */
  keys: string[];
  /** Those without a default: the service refuses to start without them. */
  required: string[];
}

/** The object schema under refinements and transforms (zod 4: a pipe's input side). */
function objectShape(schema: ZodType): Record<string, unknown> {
  let current: unknown = schema;
  for (let depth = 0; depth < 5; depth++) {
    const candidate = current as { shape?: Record<string, unknown>; def?: { type?: string; in?: unknown } };
    if (candidate.shape && typeof candidate.shape === 'object') return candidate.shape;
    if (candidate.def?.type === 'pipe') current = candidate.def.in;
    else break;
  }
  throw new Error('not an object schema (nor a pipe from one)');
}

export function serviceEnv(service: string): ServiceEnv {
  const schema = SCHEMAS[service];
  if (!schema) throw new Error(`no env schema known for ${service}`);
  const keys = Object.keys(objectShape(schema)).sort();
  // Parsing an empty environment reports exactly the variables that have no default.
  const result = schema.safeParse({});
  const required = result.success
    ? []
    : [...new Set(result.error.issues.filter((i) => i.path.length === 1).map((i) => String(i.path[0])))].sort();
  return { keys, required };
}

export function knownServices(): string[] {
  return Object.keys(SCHEMAS);
}
