/** The duckdb connector driver: a DuckDB database file under the data root as source, sink and SQL target. */
import { ConnectorError } from '../connector-error.js';
import type { ConnectorDriver, ExecuteOptions, ReadRequest, Row, WriteRequest } from '../types.js';
import { parseDuckdbConfig, duckdbInfo } from './duckdb.config.js';
import { executeDuckdb } from './execute.js';
import { readDuckdb } from './read.js';
import { testDuckdb } from './test-connection.js';
import { writeDuckdb } from './write.js';

export const duckdbDriver: ConnectorDriver = {
  info: duckdbInfo,

  test: testDuckdb,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    return (async function* () {
      yield* readDuckdb(parseDuckdbConfig(config), req);
    })();
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    const cfg = parseDuckdbConfig(config);
    if (req.mode !== 'append' && req.mode !== 'overwrite' && req.mode !== 'upsert') {
      throw new ConnectorError(`unknown write mode "${String(req.mode)}"`, 'config_error');
    }
    if (typeof req.table !== 'string' || req.table === '') throw new ConnectorError('a write needs a table', 'config_error');
    return writeDuckdb(cfg, req, batches);
  },

  async execute(config: Record<string, unknown>, sql: string, opts: ExecuteOptions = {}) {
    const cfg = parseDuckdbConfig(config);
    if (sql.trim() === '') throw new ConnectorError('the statement is empty', 'config_error');
    return executeDuckdb(cfg, sql, opts.tenantId, opts.signal);
  },
};
