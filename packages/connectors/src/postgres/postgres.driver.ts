/** The postgres connector driver: Test Connection, cursor and COPY reads, COPY writes and statements. */
import { ConnectorError } from '../connector-error.js';
import type { ConnectorDriver, CsvChunk, DuckDBTable, ReadRequest, Row, WriteRequest } from '../types.js';
import { executeStatement } from './execute.js';
import { parsePostgresConfig, postgresInfo, type PostgresConfig } from './postgres.config.js';
import { readRows } from './read.js';
import { readCsv } from './read-csv.js';
import { readIntoTable } from './read-typed.js';
import { testPostgres } from './test-connection.js';
import { csvTargetReady, writeCsv, writeRows } from './write.js';
import { writeFromTable } from './write-typed.js';

const WRITE_MODES = new Set(['append', 'overwrite', 'upsert']);

function writeConfigOf(config: Record<string, unknown>, req: WriteRequest): PostgresConfig {
  const cfg = parsePostgresConfig(config);
  if (!WRITE_MODES.has(req.mode)) throw new ConnectorError(`unknown write mode "${String(req.mode)}"`, 'config_error');
  if (typeof req.table !== 'string' || req.table === '')
    throw new ConnectorError('a write needs a table', 'config_error');
  return cfg;
}

export const postgresDriver: ConnectorDriver = {
  info: postgresInfo,

  nodeFields: { source: ['params'], sink: [] },

  test: testPostgres,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    // Parsing inside the generator reports a bad config from the first next(), like every other read failure.
    return (async function* () {
      yield* readRows(parsePostgresConfig(config), req);
    })();
  },

  readCsv(config: Record<string, unknown>, req: ReadRequest): AsyncGenerator<CsvChunk, { rows_read: number }> {
    return (async function* () {
      return yield* readCsv(parsePostgresConfig(config), req);
    })();
  },

  async readIntoTable(config: Record<string, unknown>, req: ReadRequest, target: DuckDBTable) {
    return readIntoTable(parsePostgresConfig(config), req, target);
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    return writeRows(writeConfigOf(config, req), req, batches);
  },

  async csvTargetReady(config: Record<string, unknown>, req: WriteRequest) {
    return csvTargetReady(writeConfigOf(config, req), req);
  },

  async writeCsv(config: Record<string, unknown>, req: WriteRequest, chunks: AsyncIterable<CsvChunk>) {
    return writeCsv(writeConfigOf(config, req), req, chunks);
  },

  async writeFromTable(config: Record<string, unknown>, req: WriteRequest, source: DuckDBTable) {
    return writeFromTable(writeConfigOf(config, req), req, source);
  },

  async execute(config: Record<string, unknown>, sql: string, opts: { signal?: AbortSignal } = {}) {
    const cfg = parsePostgresConfig(config);
    if (sql.trim() === '') throw new ConnectorError('the statement is empty', 'config_error');
    return executeStatement(cfg, sql, opts);
  },
};
