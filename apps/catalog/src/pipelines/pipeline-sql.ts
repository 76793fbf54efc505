/**
 * Tenants' SQL in a DAG checked at save time by the same checker the executor runs (userSqlProblem of
 * @conduit/connectors, in a child process bounded in memory and time: isolatedSqlProblem): transform and rules-decision SQL, and the query or statement of a duckdb connector's node.
 * A pipeline with SQL that could never run (a file reader, a second statement, a SET...) is refused with a 422
 * naming the node, so its author learns it now rather than from a failed run.
 */
import { In, type EntityManager } from 'typeorm';
import { DAG_LIMITS, DECISION_RULES_MAX, referencedConnectorIds, type Dag } from '@conduit/dag';
import { isolatedSqlProblem, NOT_VALID_SQL, type UserSqlKind } from '@conduit/connectors';
import type { FieldError } from '@conduit/contracts';
import { ConnectorEntity } from '../connectors/connector.entity.js';

/** The connector type whose SQL runs in DuckDB; other connectors' SQL runs on their own servers. */
const DUCKDB = 'duckdb';
/**
 * How long one save or draft validation may spend parsing its SQL. What is left unparsed is not refused here; the
 * executor's engine refuses it when the node runs (this check is the early answer, not the guard).
 */
export const SQL_CHECK_BUDGET_MS = 1000;

interface SqlField {
  path: string;
  sql: string;
  kind: UserSqlKind;
}

/** The SQL fields of one node that DuckDB runs, with where they sit in the body. */
function sqlFieldsOf(node: Dag['nodes'][number], at: string, connectorType: string | undefined): SqlField[] {
  const { config } = node;
  const text = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
  if (node.type === 'transform' && text(config['sql']))
    return [{ path: `${at}.config.sql`, sql: config['sql'], kind: 'select' }];
  if (node.type === 'decision' && config['strategy'] === 'rules' && Array.isArray(config['rules'])) {
    // A decision over the rule limit is invalid for that alone: its rules past the limit are not parsed.
    return config['rules'].slice(0, DECISION_RULES_MAX).flatMap((rule: unknown, i) => {
      const sql = (rule as { sql?: unknown } | null)?.sql;
      return text(sql) ? [{ path: `${at}.config.rules[${i}].sql`, sql, kind: 'select' as const }] : [];
    });
  }
  if (connectorType !== DUCKDB) return [];
  if (node.type === 'source' && text(config['query']))
    return [{ path: `${at}.config.query`, sql: config['query'], kind: 'select' }];
  if (node.type === 'sql' && text(config['sql']))
    return [{ path: `${at}.config.sql`, sql: config['sql'], kind: 'statement' }];
  return [];
}

/**
 * 422 field errors for every SQL field DuckDB would refuse, empty when all may run: `invalid_sql` for text DuckDB's
 * parser cannot read, `sql_not_allowed` for SQL it reads and the check refuses (a file reader, a second statement).
 */
export async function dagSqlErrors(
  manager: EntityManager,
  tenantId: string,
  dag: Dag,
  budgetMs = SQL_CHECK_BUDGET_MS,
): Promise<FieldError[]> {
  // A DAG over the node limit is stored invalid for that reason alone; parsing thousands of statements would only
  // make its author wait (and the gateway time out) for errors about a pipeline that cannot run anyway.
  if (dag.nodes.length > DAG_LIMITS.maxNodes) return [];
  const ids = referencedConnectorIds(dag);
  const rows =
    ids.length === 0
      ? []
      : await manager.find(ConnectorEntity, { select: { id: true, type: true }, where: { tenantId, id: In(ids) } });
  const typeOf = new Map(rows.map((r) => [r.id, r.type]));
  const errors: FieldError[] = [];
  // The same statement in many nodes is parsed once.
  const verdicts = new Map<string, Promise<string | null | undefined>>();
  const deadline = performance.now() + budgetMs;
  // Undefined: not checked within the budget (the run checks it again).
  const problemOf = (field: SqlField): Promise<string | null | undefined> => {
    const key = `${field.kind}\u0000${field.sql}`;
    let verdict = verdicts.get(key);
    if (!verdict)
      verdicts.set(key, (verdict = isolatedSqlProblem(field.sql, field.kind, deadline - performance.now())));
    return verdict;
  };
  for (const [index, node] of dag.nodes.entries()) {
    const connectorId = node.config['connector_id'];
    const type = typeof connectorId === 'string' ? typeOf.get(connectorId) : undefined;
    for (const field of sqlFieldsOf(node, `dag.nodes[${index}]`, type)) {
      if (performance.now() > deadline) return errors;
      const problem = await problemOf(field);
      if (typeof problem === 'string')
        errors.push({
          path: field.path,
          code: problem.startsWith(NOT_VALID_SQL) ? 'invalid_sql' : 'sql_not_allowed',
          message: `node "${node.id}": the SQL ${problem}`,
        });
    }
  }
  return errors;
}
