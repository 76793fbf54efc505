/** The postgres connector driver: Test Connection, cursor reads, COPY writes and statements. */
import { ConnectorError } from '../connector-error.js';
import type { ConnectorDriver, ReadRequest, Row, WriteRequest } from '../types.js';
import { executeStatement } from './execute.js';
import { parsePostgresConfig, postgresInfo } from './postgres.config.js';
import { readRows } from './read.js';
import { testPostgres } from './test-connection.js';
import { writeRows } from './write.js';

const WRITE_MODES = new Set(['append', 'overwrite', 'upsert']);

export const postgresDriver: ConnectorDriver = {
  info: postgresInfo,

  test: testPostgres,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    // Parsing inside the generator reports a bad config from the first next(), like every other read failure.
    return (async function* () {
      yield* readRows(parsePostgresConfig(config), req);
    })();
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    const cfg = parsePostgresConfig(config);
    if (!WRITE_MODES.has(req.mode)) throw new ConnectorError(`unknown write mode "${String(req.mode)}"`, 'config_error');
    if (typeof req.table !== 'string' || req.table === '') throw new ConnectorError('a write needs a table', 'config_error');
    return writeRows(cfg, req, batches);
  },

  async execute(config: Record<string, unknown>, sql: string, opts: { signal?: AbortSignal } = {}) {
    const cfg = parsePostgresConfig(config);
    if (sql.trim() === '') throw new ConnectorError('the statement is empty', 'config_error');
    return executeStatement(cfg, sql, opts.signal);
  },
};
