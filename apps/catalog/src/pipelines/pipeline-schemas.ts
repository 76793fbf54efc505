/**
 * Validation against known schemas: transform and rules SQL bound (never run) against the columns their inputs will
 * have, where those are known. A source's columns are known from the latest run that recorded them, while the node
 * is still the one that run ran (same type and config); a transform's are what its SQL binds to when all its inputs'
 * are known; a decision passes its single input's on. So known schemas flow down the DAG, and SQL that names a column
 * or table its inputs lack is an error now rather than a failed run later. Where a schema is unknown nothing is said.
 */
import { isDeepStrictEqual } from 'node:util';
import { performance } from 'node:perf_hooks';
import { DAG_LIMITS, LEAVES_TABLE, type Dag, type DagNode, type ValidationIssue } from '@conduit/dag';
import { isDeclarableType, isolatedBind, type BindColumn, type BindOutcome } from '@conduit/connectors';
import {
  RUN_NODE_COLUMN_NAME_MAX,
  RUN_NODE_COLUMN_TYPE_MAX,
  RUN_NODE_COLUMNS_MAX,
  type RecordedSchemasReply,
  type RecordedSourceSchema,
  type RunNodeColumn,
} from '@conduit/contracts';

/** What validation knows of earlier runs: their recorded columns, none to look for, or none to be had in time. */
export type SchemaEvidence =
  { kind: 'recorded'; reply: RecordedSchemasReply } | { kind: 'none' } | { kind: 'unavailable' };

/**
 * How long binding may take for one validation: a few milliseconds a statement, so a big DAG would otherwise keep a
 * save waiting for seconds. What is left past it is not checked, and a warning says so.
 */
export const SCHEMA_CHECK_BUDGET_MS = 1000;

const UNCHECKED = 'schemas_unchecked';

const text = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** The SQL of a node that runs over its inputs, with where it sits in the DAG. */
function sqlOf(node: DagNode, at: string): { path: string; sql: string }[] {
  const { config } = node;
  if (node.type === 'transform') return text(config['sql']) ? [{ path: `${at}.config.sql`, sql: config['sql'] }] : [];
  if (node.type === 'decision' && config['strategy'] === 'rules' && Array.isArray(config['rules'])) {
    return config['rules'].flatMap((rule: unknown, i) => {
      const sql = (rule as { sql?: unknown } | null)?.sql;
      return text(sql) ? [{ path: `${at}.config.rules[${i}].sql`, sql }] : [];
    });
  }
  return [];
}

/** Whether a DAG holds SQL that recorded schemas could check (else the scheduler need not be asked). */
export function hasBindableSql(dag: Dag): boolean {
  return dag.nodes.some((node, i) => sqlOf(node, `nodes[${i}]`).length > 0);
}

/** A cut name or type (`…`), a type the run did not know (CSV hand-off) or a cut list: not the real columns. */
function wholeColumns(columns: readonly RunNodeColumn[]): BindColumn[] | undefined {
  if (columns.length === 0 || columns.length >= RUN_NODE_COLUMNS_MAX) return undefined;
  const cut = (value: string, max: number) => value.length >= max && value.endsWith('…');
  const whole: BindColumn[] = [];
  for (const c of columns) {
    if (c.type === null || cut(c.name, RUN_NODE_COLUMN_NAME_MAX) || cut(c.type, RUN_NODE_COLUMN_TYPE_MAX))
      return undefined;
    whole.push({ name: c.name, type: c.type });
  }
  return whole;
}

/** The recorded columns of a source node, when the run that recorded them ran this very node. */
function sourceColumns(node: DagNode, recorded: RecordedSourceSchema | undefined): BindColumn[] | undefined {
  if (!recorded || recorded.node.type !== node.type || !isDeepStrictEqual(recorded.node.config, node.config))
    return undefined;
  return wholeColumns(recorded.columns);
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

/** The error for SQL that does not bind, or undefined where binding tells nothing sure. */
function issueOf(
  outcome: BindOutcome,
  node: DagNode,
  path: string,
  inputs: readonly string[],
  nodeIds: ReadonlySet<string>,
): ValidationIssue | undefined {
  const subject = `node "${node.id}": the SQL`;
  switch (outcome.kind) {
    case 'unknown_table':
      // Another node of the DAG whose columns are unknown here (or that runs in parallel): nothing sure to say.
      if (outcome.table === undefined || nodeIds.has(outcome.table.toLowerCase())) return undefined;
      return {
        code: 'unknown_table',
        message: `${subject} reads the table "${outcome.table}", which is none of its inputs (${quoted(inputs)})`,
        node_id: node.id,
        path,
      };
    case 'unknown_column':
      return {
        code: 'unknown_column',
        message: `${subject} names a column its inputs do not have: ${outcome.message}`,
        node_id: node.id,
        path,
      };
    case 'unbindable':
      return {
        code: 'sql_binding',
        message: `${subject} does not bind to its inputs' columns: ${outcome.message}`,
        node_id: node.id,
        path,
      };
    default:
      // bound; not_allowed, which the save already refused (sql_not_allowed); or undeclared: nothing sure to say.
      return undefined;
  }
}

/**
 * Walks the DAG in execution order, binding each node's SQL against its inputs' columns in the SQL-check child
 * (isolatedBind: binding computes what the binder needs, unbounded, so never in the catalog's own process) and
 * knowing each node's output once its columns are known; stops at `deadline` (performance.now()), or when a bind does
 * not answer by it, with a warning naming the first node left unchecked.
 */
async function walk(
  dag: Dag,
  order: readonly string[][],
  recorded: ReadonlyMap<string, RecordedSourceSchema>,
  deadline: number,
): Promise<{ errors: ValidationIssue[]; warnings: ValidationIssue[] }> {
  const indexOf = new Map(dag.nodes.map((node, i) => [node.id, i]));
  const nodeIds = new Set(dag.nodes.map((node) => node.id.toLowerCase()));
  const typeOf = new Map(dag.nodes.map((node) => [node.id, node.type]));
  // A node's inputs are the tables above it: an edge from a sql node or a sink only orders (LEAVES_TABLE).
  const inputsOf = new Map<string, string[]>();
  for (const edge of dag.edges)
    if (LEAVES_TABLE.has(typeOf.get(edge.from) ?? ''))
      inputsOf.set(edge.to, [...(inputsOf.get(edge.to) ?? []), edge.from]);
  const known = new Map<string, BindColumn[]>();
  const issues: ValidationIssue[] = [];
  const warnings: ValidationIssue[] = [];
  const declare = (id: string, columns: BindColumn[] | undefined) => {
    if (columns && columns.every((c) => isDeclarableType(c.type))) known.set(id, columns);
  };
  const stopAt = (ids: readonly string[]) => {
    // Only SQL left unchecked is worth a warning (the rest may be sinks).
    const next = ids.find((rest) => sqlOf(dag.nodes[indexOf.get(rest)!]!, '').length > 0);
    if (next !== undefined) {
      const message = `checking SQL against its inputs' columns stopped after ${SCHEMA_CHECK_BUDGET_MS} ms: node "${next}" and those after it in the execution order were not checked`;
      warnings.push({ code: UNCHECKED, message, node_id: next });
    }
  };
  const ids = order.flat();
  walking: for (const [at, id] of ids.entries()) {
    if (performance.now() > deadline) {
      stopAt(ids.slice(at));
      break;
    }
    const index = indexOf.get(id)!;
    const node = dag.nodes[index]!;
    const inputs = [...new Set(inputsOf.get(id) ?? [])];
    if (node.type === 'source') {
      declare(id, sourceColumns(node, recorded.get(id)));
      continue;
    }
    if (inputs.length === 0 || !inputs.every((input) => known.has(input))) continue;
    const tables = inputs.map((input) => ({ name: input, columns: known.get(input)! }));
    let output: BindColumn[] | undefined;
    for (const field of sqlOf(node, `nodes[${index}]`)) {
      const outcome = await isolatedBind(field.sql, tables, deadline - performance.now());
      if (!outcome) {
        stopAt(ids.slice(at));
        break walking;
      }
      const issue = issueOf(outcome, node, field.path, inputs, nodeIds);
      if (issue) issues.push(issue);
      if (outcome.kind === 'bound') output = outcome.columns;
    }
    if (node.type === 'transform') declare(id, output);
    else if (node.type === 'decision' && inputs.length === 1) declare(id, known.get(inputs[0]!));
  }
  return { errors: issues, warnings };
}

/**
 * Errors of SQL that does not bind against the known schemas, and a warning when they could not be learned.
 * `order` is validation's execution order (nodes in a cycle are not in it, and are not checked).
 */
export async function schemaIssues(
  dag: Dag,
  order: readonly string[][],
  evidence: SchemaEvidence,
  budgetMs = SCHEMA_CHECK_BUDGET_MS,
): Promise<{ errors: ValidationIssue[]; warnings: ValidationIssue[] }> {
  const deadline = performance.now() + budgetMs;
  if (evidence.kind === 'none' || dag.nodes.length > DAG_LIMITS.maxNodes || !hasBindableSql(dag))
    return { errors: [], warnings: [] };
  if (evidence.kind === 'unavailable') {
    const message =
      "the columns earlier runs recorded could not be read in time (the scheduler did not answer): SQL was not checked against its inputs' columns";
    return { errors: [], warnings: [{ code: UNCHECKED, message }] };
  }
  // Ids used twice are already an error; which node a run's columns belong to would be a guess.
  if (new Set(dag.nodes.map((n) => n.id)).size !== dag.nodes.length) return { errors: [], warnings: [] };
  const recorded = new Map(evidence.reply.sources.map((s) => [s.node_id, s]));
  if (recorded.size === 0) return { errors: [], warnings: [] };
  return walk(dag, order, recorded, deadline);
}
