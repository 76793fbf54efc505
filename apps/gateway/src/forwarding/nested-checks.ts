/**
 * Fields inside a body that their owner checks only once the rest of the body is valid (a DAG's shape, a connector's
 * config), checked here as well when the body has other faults, so that errors[] lists every field at fault at once
 * (api.md) rather than one layer per try. Only shape: what needs the owner's data (a connector's stored secrets, the
 * SQL of a well-shaped DAG) still comes once the body is valid.
 */
import { validateConnectorConfig } from '@conduit/connectors/config-validation';
import { checkDagShape, isPlainObject, MAX_SHAPE_PROBLEMS } from '@conduit/dag';
import type { FieldError } from '@conduit/contracts';

/** The faults of a body's nested fields (empty when there are none or the field is not there to check). */
export type NestedCheck = (body: Record<string, unknown>) => FieldError[];

/** Nested checks by verb: an update may be judged against what is stored, which only the owner has. */
export interface NestedChecks {
  create?: NestedCheck;
  update?: NestedCheck;
}

/** A pipeline's `dag`, when it is an object (otherwise the body's own schema names it); at most MAX_SHAPE_PROBLEMS. */
const dagShape: NestedCheck = (body) =>
  isPlainObject(body['dag'])
    ? checkDagShape(body['dag']).map(({ path, code, message }) => ({ path, code, message }))
    : [];

export const DAG_SHAPE: NestedChecks = { create: dagShape, update: dagShape };

/**
 * A new connector's `config` against the JSON Schema of the `type` it names, at most MAX_SHAPE_PROBLEMS faults. Not on
 * an update: its config is judged against the stored type (a different `type` is refused as immutable) and merged with
 * the stored secrets first, both of which only the catalog has.
 */
export const CONNECTOR_CONFIG: NestedChecks = {
  create: (body) => {
    const { type, config } = body;
    if (typeof type !== 'string' || !isPlainObject(config)) return [];
    const problems = validateConnectorConfig(type, config);
    if (problems.some((p) => p.path === 'type')) return [];
    return problems.slice(0, MAX_SHAPE_PROBLEMS).map(({ path, code, message }) => ({ path, code, message }));
  },
};

/**
 * The nested faults not inside a field already at fault as a whole (`dag` itself refused: nothing about its nodes):
 * each fault's enclosing paths looked up in a set, so a body of many faults costs their number, not its square.
 */
export function withoutFaultsWithin(nested: FieldError[], atFault: readonly FieldError[]): FieldError[] {
  const whole = new Set(atFault.map((e) => e.path));
  return nested.filter((e) => !enclosingPaths(e.path).some((p) => whole.has(p)));
}

/** `a.b[2].c` -> `a.b[2].c`, `a.b[2]`, `a.b`, `a`. */
function enclosingPaths(path: string): string[] {
  const paths = [path];
  for (let i = path.length - 1; i > 0; i--) if (path[i] === '.' || path[i] === '[') paths.push(path.slice(0, i));
  return paths;
}
