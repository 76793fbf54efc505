/**
 * `source`: fills a DuckDB table named after the node: typed and in bulk where the driver can (`readIntoTable`), else
 * from its batches of rows (or hands CSV straight to its sink, see csv-handoff.ts).
 */
import { TableLoader } from '../../data/table-loader.js';
import type { NodeContext, NodeResult } from '../node-context.js';
import { PLATFORM_SQL, withDuckDB, type DuckDBUse } from './duckdb-session.js';
import { withoutEngineKeys } from './engine-keys.js';
import { handsOffCsv, runSourceToCsv } from './csv-handoff.js';
import { driverRequest } from './driver-request.js';
import { asConfigError } from './sql-refusal.js';
import { outputColumns } from '../node-columns.js';

/** The driver's read request: the node's config without the engine's own keys. */
export function sourceRequestOf(ctx: NodeContext): Record<string, unknown> {
  return withoutEngineKeys(ctx.node.config);
}

/**
 * Sources whose statements in the run's DuckDB carry only types the platform maps itself (from the source database's
 * type numbers, pg-types.ts and mysql's typed-columns.ts): their runs need no check of the instance's settings when
 * they end (RunWorkspace connect). The others build them around types the tenant's own data declares (a DuckDB file's
 * printed types, a file's sniffed schema): counted as a tenant's SQL, so the whole check runs, whatever DuckDB prints.
 */
const PLATFORM_TYPED_SOURCES = new Set(['postgres', 'mysql']);

const workspaceUseOf = (connectorType: string): DuckDBUse =>
  PLATFORM_TYPED_SOURCES.has(connectorType) ? PLATFORM_SQL : {};

export async function runSource(ctx: NodeContext): Promise<NodeResult> {
  const request = sourceRequestOf(ctx);
  if (ctx.csvHandoff && (await handsOffCsv(ctx, ctx.csvHandoff))) return runSourceToCsv(ctx, request);
  const { connector, driver } = ctx.connector('read');
  return withDuckDB(
    ctx.workspace,
    ctx.signal,
    async (connection) => {
      if (driver.readIntoTable) {
        // Typed and in bulk: the table's columns have the types the source's own catalog declares.
        try {
          const target = {
            connection,
            table: ctx.node.id,
            scratchDir: ctx.workspace.scratchDir,
            buffers: ctx.workspace.buffers,
          };
          const { rows, columns } = await driver.readIntoTable(connector.config, driverRequest(ctx, request), target);
          ctx.log('info', `read ${rows} rows`);
          // The rows the driver loaded into the new table: the next transform or decision need not count them again.
          ctx.workspace.setTableRows(ctx.node.id, rows);
          return {
            rows_in: 0,
            rows_out: rows,
            output: null,
            columns: await outputColumns(ctx, connection, columns),
          };
        } catch (err) {
          throw asConfigError(err);
        }
      }
      const loader = new TableLoader(connection, ctx.node.id);
      try {
        for await (const batch of driver.read!(connector.config, driverRequest(ctx, request))) {
          ctx.signal.throwIfAborted();
          await loader.append(batch);
        }
        const rows = await loader.finish();
        ctx.log('info', `read ${rows} rows`);
        ctx.workspace.setTableRows(ctx.node.id, rows);
        return { rows_in: 0, rows_out: rows, output: null, columns: await outputColumns(ctx, connection) };
      } catch (err) {
        loader.abandon();
        throw asConfigError(err);
      }
    },
    workspaceUseOf(connector.type),
  );
}
