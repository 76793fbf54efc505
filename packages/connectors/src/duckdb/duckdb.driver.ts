/**
 * The duckdb connector driver: a DuckDB database file under the data root as source, sink and SQL target. Every
 * opening of the tenant's file happens in a file worker (file-worker/), never in the calling process.
 */
import { ConnectorError } from '../connector-error.js';
import type { ConnectorDriver, DuckDBTable, ExecuteOptions, ReadRequest, Row, WriteRequest } from '../types.js';
import { parseDuckdbConfig, duckdbInfo } from './duckdb.config.js';
import { fileReadOf, fileWorkBase, inWorker, workInWorker } from './file-worker/workers.js';
import { readIntoTable } from './read-into-table.js';
import { testDuckdb } from './test-connection.js';
import { writeDuckdb } from './write.js';
import { writeFromTable } from './write-from-table.js';

function checkWriteRequest(req: WriteRequest): void {
  if (req.mode !== 'append' && req.mode !== 'overwrite' && req.mode !== 'upsert') {
    throw new ConnectorError(`unknown write mode "${String(req.mode)}"`, 'config_error');
  }
  if (typeof req.table !== 'string' || req.table === '')
    throw new ConnectorError('a write needs a table', 'config_error');
}

export const duckdbDriver: ConnectorDriver = {
  info: duckdbInfo,

  test: testDuckdb,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    return (async function* () {
      const cfg = parseDuckdbConfig(config);
      yield* workInWorker(
        { op: 'read', cfg, ...fileWorkBase(req.tenantId, req.duckdbLimits), read: fileReadOf(req) },
        req.signal,
      );
    })();
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    const cfg = parseDuckdbConfig(config);
    checkWriteRequest(req);
    return writeDuckdb(cfg, req, batches);
  },

  async readIntoTable(config: Record<string, unknown>, req: ReadRequest, target: DuckDBTable) {
    return readIntoTable(parseDuckdbConfig(config), req, target);
  },

  async writeFromTable(config: Record<string, unknown>, req: WriteRequest, source: DuckDBTable) {
    const cfg = parseDuckdbConfig(config);
    checkWriteRequest(req);
    return writeFromTable(cfg, req, source);
  },

  async execute(config: Record<string, unknown>, sql: string, opts: ExecuteOptions = {}) {
    const cfg = parseDuckdbConfig(config);
    if (sql.trim() === '') throw new ConnectorError('the statement is empty', 'config_error');
    return inWorker<{ rows_affected: number }>(
      { op: 'execute', cfg, ...fileWorkBase(opts.tenantId, opts.duckdbLimits), sql },
      opts.signal,
    );
  },
};
