/**
 * A tenant's SELECT (a transform's SQL, a rules decision's) is bound first in the process's SQL-check child
 * (isolatedBind, packages/connectors), against the run's tables declared by their columns, before the executor binds
 * it itself. Binding computes whatever DuckDB's binder needs, outside the run's memory limit and past interrupts: a
 * table function's arguments, a JSON path, a pattern (`json_extract(s, repeat('$', 2000000000))` took 2 GB and 30 s
 * of the executor). In the child an allocation past its data-size limit fails, so SQL whose plan needs more than that
 * fails its node here and is never bound in the executor; SQL the child bound within it binds here within it too.
 * A verdict is kept per SQL and the run's recorded table columns: a pipeline's next runs ask nothing.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { bindInputsOf, isolatedBind, type BindOutcome } from '@conduit/connectors';
import { LruCopies } from '@conduit/service-kit';
import type { RunWorkspace } from '../../data/run-workspace.js';
import { NodeFailure } from '../node-failure.js';
import type { NodeContext } from '../node-context.js';

/** How long the child may take to bind one statement (the first call also starts the child: ~0.3 s). */
export const PLAN_BUDGET_MS = 5_000;

/** SQL the child bound (or refused for what it names, as the executor's own bind would), by planKey. */
const planned = new LruCopies<true>({ maxEntries: 2_000, ttlMs: 60 * 60_000 });

/** What the executor's own bind would refuse too: the statement may be bound here, it does no more than in the child. */
const SAFE_OUTCOMES: ReadonlySet<BindOutcome['kind']> = new Set([
  'bound',
  'unknown_table',
  'unknown_column',
  'not_allowed',
]);

/** A binder error that is the child's data-size limit, not the SQL: binding it here would take that memory. */
const RESOURCE_FAILURE = /out of memory|alloc/i;

/**
 * The tenant, the run's tables as recorded and the SQL, hashed: the verdict's key, bounded in size whatever the SQL's
 * length. Per tenant, so how fast a node starts tells nothing of the SQL another tenant ran.
 */
const planKey = (tenantId: string, sql: string, workspace: RunWorkspace): string =>
  createHash('sha256')
    .update(workspace.recordedColumnsDigest())
    .update(JSON.stringify([tenantId, sql]))
    .digest('base64');

/** Whether `outcome` says the statement binds within the child's limits (or fails the way it would here). */
function withinLimits(outcome: BindOutcome): boolean {
  if (outcome.kind === 'unbindable') return !RESOURCE_FAILURE.test(outcome.message);
  return SAFE_OUTCOMES.has(outcome.kind);
}

/**
 * Throws a NodeFailure (its message completing `subject`) unless `sql` binds in the SQL-check child against the tables
 * of the run's database as `connection` sees them.
 */
export async function checkPlanIsolated(
  ctx: Pick<NodeContext, 'tenantId' | 'workspace'>,
  connection: DuckDBConnection,
  sql: string,
  subject: string,
): Promise<void> {
  const key = planKey(ctx.tenantId, sql, ctx.workspace);
  if (planned.get(key)) return;
  const outcome = await isolatedBind(sql, await bindInputsOf(connection), PLAN_BUDGET_MS);
  if (outcome === undefined) {
    // Slow planning, or a child that could not start or was restarted twice meanwhile: another attempt may pass.
    throw new NodeFailure(`${subject} could not be planned within ${PLAN_BUDGET_MS / 1000} s`, true);
  }
  if (outcome.kind === 'undeclared') {
    throw new NodeFailure(
      `${subject} could not be checked: the columns of table "${outcome.table}" cannot be declared again`,
      false,
      'config_error',
    );
  }
  if (!withinLimits(outcome)) {
    throw new NodeFailure(
      `${subject} needs more memory to plan than a statement may take: ${'message' in outcome ? outcome.message : ''}`,
      false,
      'config_error',
    );
  }
  planned.set(key, true);
}
