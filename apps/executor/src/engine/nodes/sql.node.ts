/** `sql`: runs one statement on its connector (DDL, a refresh, a procedure). */
import { NodeFailure } from '../node-failure.js';
import type { NodeContext, NodeResult } from '../node-context.js';
import { asConfigError } from './sql-refusal.js';

export async function runSql(ctx: NodeContext): Promise<NodeResult> {
  const sql = ctx.node.config['sql'];
  if (typeof sql !== 'string' || sql.trim() === '') throw new NodeFailure('sql node needs config.sql', false);
  const { connector, driver } = ctx.connector('execute');
  const { rows_affected } = await driver.execute!(connector.config, sql, {
    signal: ctx.signal,
    tenantId: ctx.tenantId,
    pool: ctx.pool,
    duckdbLimits: ctx.workspace.duckdbLimits,
  }).catch((err: unknown) => {
    throw asConfigError(err);
  });
  ctx.log('info', `statement affected ${rows_affected} rows`);
  return { rows_in: 0, rows_out: rows_affected, output: { rows_affected } };
}
