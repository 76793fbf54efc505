/** `sink`: writes its single input table: typed and in bulk where the driver can (`writeFromTable`), else in batches. */
import { readBatches } from '../../data/table-reader.js';
import { NodeFailure } from '../node-failure.js';
import type { NodeContext, NodeResult } from '../node-context.js';
import { PLATFORM_SQL, countRows, withDuckDB } from './duckdb-session.js';
import { sinkRequestOf } from './sink-request.js';
import { runSinkFromCsv } from './csv-handoff.js';
import { inputColumns } from '../node-columns.js';

export async function runSink(ctx: NodeContext): Promise<NodeResult> {
  if (ctx.inputs.length !== 1)
    throw new NodeFailure(
      `a sink needs exactly one input that leaves a table (a source, transform or decision), it has ${ctx.inputs.length}${
        ctx.inputs.length === 0 ? ': an edge from a sql node or a sink only orders' : ''
      }`,
      false,
      'config_error',
    );
  const input = ctx.inputs[0]!;
  const csv = ctx.workspace.csvOutput(input);
  if (csv) return runSinkFromCsv(ctx, csv);
  const { connector, driver } = ctx.connector('write');
  const request = sinkRequestOf(ctx);
  const { table, mode } = request;
  return withDuckDB(
    ctx.workspace,
    ctx.signal,
    async (connection) => {
      // Read before writing: a failure after the write would retry it, and append twice.
      const columns = await inputColumns(ctx, connection, input);
      if (driver.writeFromTable) {
        // Typed and in bulk: the driver maps the table's DuckDB types to the target's.
        const rowsIn = await countRows(connection, input);
        const source = {
          connection,
          table: input,
          scratchDir: ctx.workspace.scratchDir,
          buffers: ctx.workspace.buffers,
        };
        const { rows_written } = await driver.writeFromTable(connector.config, request, source);
        ctx.log('info', `wrote ${rows_written} of ${rowsIn} rows to ${String(table)} (${mode})`);
        return { rows_in: rowsIn, rows_out: rows_written, output: null, columns };
      }
      let rowsIn = 0;
      const batches = (async function* () {
        for await (const batch of readBatches(connection, input, ctx.sinkBatchRows, ctx.signal)) {
          rowsIn += batch.length;
          yield batch;
        }
      })();
      const { rows_written } = await driver.write!(connector.config, request, batches);
      ctx.log('info', `wrote ${rows_written} of ${rowsIn} rows to ${String(table)} (${mode})`);
      return { rows_in: rowsIn, rows_out: rows_written, output: null, columns };
    },
    PLATFORM_SQL,
  );
}
