/**
 * Fields inside a body that their owner checks only once the rest of the body is valid (a DAG's shape, a connector's
 * config), checked here as well when the body has other faults, so that errors[] lists every field at fault at once
 * (api.md) rather than one layer per try. Only shape: what needs the owner's data (a connector's stored type and
 * secrets, the SQL of a well-shaped DAG) still comes once the body is valid.
 */
import { validateConnectorConfig } from '@conduit/connectors/config-validation';
import { checkDagShape, isPlainObject, MAX_SHAPE_PROBLEMS } from '@conduit/dag';
import type { FieldError } from '@conduit/contracts';

/** The faults inside one field of a body (empty when there are none or the field is not there to check). */
export interface NestedCheck {
  /** The body's field it looks into. */
  field: string;
  /** At most MAX_SHAPE_PROBLEMS, each with a path inside `field`. */
  faults(body: Record<string, unknown>): FieldError[];
}

/** Nested checks by verb: an update may be judged against what is stored, which only the owner has. */
export interface NestedChecks {
  create?: NestedCheck;
  update?: NestedCheck;
}

/** A pipeline's `dag`, when it is an object (otherwise the body's own schema names it). */
const dagShape: NestedCheck = {
  field: 'dag',
  faults: (body) =>
    isPlainObject(body['dag'])
      ? checkDagShape(body['dag']).map(({ path, code, message }) => ({ path, code, message }))
      : [],
};

export const DAG_SHAPE: NestedChecks = { create: dagShape, update: dagShape };

/**
 * A new connector's `config` against the JSON Schema of the `type` it names. Not on an update: its config is judged
 * against the stored type (a different `type` is refused as immutable) and merged with the stored secrets first, both
 * of which only the catalog has; its faults come once the rest of the body is valid.
 */
export const CONNECTOR_CONFIG: NestedChecks = {
  create: {
    field: 'config',
    faults: (body) => {
      const { type, config } = body;
      if (typeof type !== 'string' || !isPlainObject(config)) return [];
      const problems = validateConnectorConfig(type, config);
      if (problems.some((p) => p.path === 'type')) return [];
      return problems.slice(0, MAX_SHAPE_PROBLEMS).map(({ path, code, message }) => ({ path, code, message }));
    },
  },
};

/**
 * The check's faults, unless the body's schema already found its field at fault as a whole (`dag` not an object:
 * nothing about its nodes). The body's schema takes the field as an opaque object, so any fault it has there is on the
 * field itself: one pass over the body's faults, whatever their number or length.
 */
export function nestedFaults(
  check: NestedCheck,
  body: Record<string, unknown>,
  atFault: readonly FieldError[],
): FieldError[] {
  const { field } = check;
  const inField = (path: string) => path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);
  return atFault.some((e) => inField(e.path)) ? [] : check.faults(body);
}
