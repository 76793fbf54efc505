/**
 * A decision that succeeded in an earlier execution of the run, run again after a takeover only because a node below
 * it reads its output: its view is rebuilt over its inputs, and its recorded choice and output stand (a model is
 * never asked twice, a rule never re-decided).
 */
import type { RunNode } from '@conduit/contracts';
import type { NodeContext, NodeResult } from '../node-context.js';
import { decisionViewSql } from '../decisions/decision-view.js';
import { PLATFORM_SQL, countInputs, withDuckDB } from './duckdb-session.js';
import { outputColumns } from '../node-columns.js';

export async function rebuildDecision(ctx: NodeContext, recorded: RunNode, choice: string): Promise<NodeResult> {
  return withDuckDB(
    ctx.workspace,
    ctx.signal,
    async (connection) => {
      const rowsIn = await countInputs(ctx.workspace, connection, ctx.inputs);
      await connection.run(decisionViewSql(ctx.node.id, ctx.inputs));
      ctx.log('info', `output rebuilt; the recorded choice "${choice}" stands`);
      return {
        rows_in: rowsIn,
        rows_out: rowsIn,
        output: recorded.output,
        choice,
        columns: await outputColumns(ctx, connection),
      };
    },
    PLATFORM_SQL,
  );
}
