import { z } from 'zod';

/** Thrown by {@link loadConfig}; the message lists every problem, one per line (`DATABASE_URL: required`). */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

const PORT_ERROR = 'must be an integer port number (0-65535)';

/** A TCP port read from the environment; chain `.default(n)` for a service's own port. */
export function envPort() {
  return z.coerce
    .number({ error: PORT_ERROR })
    .int({ error: PORT_ERROR })
    .min(0, { error: PORT_ERROR })
    .max(65535, { error: PORT_ERROR });
}

/**
 * Settings every service shares, as zod shapes to spread into the service's own schema:
 * `z.object({ ...baseEnv, SERVICE_PORT: envPort().default(3001), SECRETS_KEY: z.string() })`.
 * Defaults fit a local machine.
 */
export const baseEnv = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** `development` only on a developer's machine (`npm start`): it lets well-known secrets through (startup/). */
  CONDUIT_ENV: z.enum(['development', 'production']).default('production'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' })
    .default('postgres://postgres@127.0.0.1:5432/postgres'),
  REDIS_URL: z
    .url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' })
    .default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z.string().min(1).default('conduit:'),
  /** Each service gives its own default (`envPort().default(3001)`). */
  SERVICE_PORT: envPort().optional(),
};

/**
 * Validates the environment once at boot into a typed object. Empty variables count as unset,
 * so `FOO=` falls back to the default. Values never appear in the error: they may be secrets.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const input: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((issue) => describeIssue(issue, input)));
}

function describeIssue(issue: z.core.$ZodIssue, input: Record<string, string>): string {
  const name = issue.path.length > 0 ? issue.path.map(String).join('.') : '(environment)';
  const missing =
    issue.code === 'invalid_type' && issue.path.length === 1 && input[String(issue.path[0])] === undefined;
  return `${name}: ${missing ? 'required' : issue.message}`;
}
