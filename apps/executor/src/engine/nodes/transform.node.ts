/** `transform`: `CREATE TABLE "<node id>" AS <sql>` over its inputs, each a table named after its node id. */
import { quoteIdent } from '../../data/sql-names.js';
import { NodeFailure } from '../node-failure.js';
import type { NodeContext, NodeResult } from '../node-context.js';
import { countInputs, countRows, withDuckDB } from './duckdb-session.js';

export async function runTransform(ctx: NodeContext): Promise<NodeResult> {
  const sql = ctx.node.config['sql'];
  if (typeof sql !== 'string' || sql.trim() === '') throw new NodeFailure('transform needs config.sql', false);
  const body = sql.trim().replace(/[;\s]+$/, '');
  return withDuckDB(ctx.workspace, ctx.signal, async (connection) => {
    const rowsIn = await countInputs(connection, ctx.inputs);
    await connection.run(`create or replace table ${quoteIdent(ctx.node.id)} as ${body}`);
    const rowsOut = await countRows(connection, ctx.node.id);
    ctx.log('info', `transformed ${rowsIn} input rows into ${rowsOut} rows`);
    return { rows_in: rowsIn, rows_out: rowsOut, output: null };
  });
}
