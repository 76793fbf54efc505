/**
 * `transform`: `CREATE TABLE "<node id>" AS (<sql>)` over its inputs, each a table named after its node id. The SQL
 * is the tenant's: DuckDB's parser must see exactly one SELECT that reads only tables (checkUserSelect), and the
 * statement built around it must again be exactly one CREATE, so nothing in the SQL can end ours and start another.
 * It is bound in the SQL-check child first (checkPlanIsolated): binding it here could take any memory.
 */
import duckdb from '@duckdb/node-api';
import { checkUserSelect, prepareUserSql, readAll } from '@conduit/connectors';
import { quoteIdent } from '../../data/sql-names.js';
import { NodeFailure } from '../node-failure.js';
import type { NodeContext, NodeResult } from '../node-context.js';
import { countInputs, seedsRandom, withDuckDB } from './duckdb-session.js';
import { asConfigError } from './sql-refusal.js';
import { checkPlanIsolated, withPlanSlot } from './isolated-plan.js';
import { outputColumns } from '../node-columns.js';

export async function runTransform(ctx: NodeContext): Promise<NodeResult> {
  const sql = ctx.node.config['sql'];
  if (typeof sql !== 'string' || sql.trim() === '') throw new NodeFailure('transform needs config.sql', false);
  return withDuckDB(
    ctx.workspace,
    ctx.signal,
    async (connection) => {
      const rowsIn = await countInputs(ctx.workspace, connection, ctx.inputs);
      // The SELECT alone: one statement, reading only tables. The CREATE below is prepared and its plan checked whole.
      await checkUserSelect(connection, sql).catch((err: unknown) => {
        throw asConfigError(err, 'the SQL');
      });
      await checkPlanIsolated(ctx, connection, sql, 'the SQL');
      // New lines, so a trailing `-- comment` of the SQL cannot swallow the closing parenthesis.
      const body = sql.trim().replace(/;[\s;]*$/, '');
      const create = await withPlanSlot(
        () =>
          prepareUserSql(
            connection,
            `create or replace table ${quoteIdent(ctx.node.id)} as (\n${body}\n)`,
            'statement',
          ),
        ctx.signal,
      ).catch((err: unknown) => {
        throw asConfigError(err, 'the SQL');
      });
      let rowsOut: number;
      try {
        if (create.statementType !== duckdb.StatementType.CREATE)
          throw new NodeFailure('the SQL must be one SELECT statement', false, 'config_error');
        // CREATE TABLE ... AS answers the rows it wrote: no count(*) of the new table after.
        rowsOut = Number((await readAll(create.run())).getRows()[0]?.[0] ?? 0);
      } finally {
        create.destroySync();
      }
      ctx.workspace.setTableRows(ctx.node.id, rowsOut);
      ctx.log('info', `transformed ${rowsIn} input rows into ${rowsOut} rows`);
      return {
        rows_in: rowsIn,
        rows_out: rowsOut,
        output: null,
        columns: await outputColumns(ctx, connection),
      };
    },
    { keep: !seedsRandom(sql) },
  );
}
