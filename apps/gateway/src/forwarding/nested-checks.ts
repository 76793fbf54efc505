/**
 * Fields inside a body that their owner checks only once the rest of the body is valid (a DAG's shape, a connector's
 * config), checked here as well when the body has other faults, so that errors[] lists every field at fault at once
 * (api.md) rather than one layer per try. Only shape: what needs the owner's data (a connector's stored secrets, the
 * SQL of a well-shaped DAG) still comes once the body is valid.
 */
import { validateConnectorConfig } from '@conduit/connectors/config-validation';
import { checkDagShape } from '@conduit/dag';
import { SECRET_MASK, type FieldError } from '@conduit/contracts';

/** The faults of a body's nested fields (empty when there are none or the field is not there to check). */
export type NestedCheck = (body: Record<string, unknown>) => FieldError[];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A pipeline's `dag`, when it is an object (otherwise the body's own schema names it). */
export const DAG_SHAPE: NestedCheck = (body) =>
  isObject(body['dag']) ? checkDagShape(body['dag']).map(({ path, code, message }) => ({ path, code, message })) : [];

/**
 * A connector's `config` against the JSON Schema of the `type` the body names. A field sent as the mask keeps its
 * stored secret on an update (checked by the catalog, which has it): no fault is reported for it here.
 */
export const CONNECTOR_CONFIG: NestedCheck = (body) => {
  const { type, config } = body;
  if (typeof type !== 'string' || !isObject(config)) return [];
  const problems = validateConnectorConfig(type, config);
  if (problems.some((p) => p.path === 'type')) return [];
  return problems
    .filter((p) => !(p.path.startsWith('config.') && config[p.path.slice('config.'.length)] === SECRET_MASK))
    .map(({ path, code, message }) => ({ path, code, message }));
};
