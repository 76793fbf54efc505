/** The mysql connector driver (MySQL and MariaDB): Test Connection, streamed and typed reads, bulk and typed writes, statements. */
import { ConnectorError } from '../connector-error.js';
import type { ConnectorDriver, DuckDBTable, ExecuteOptions, ReadRequest, Row, WriteRequest } from '../types.js';
import { executeMysqlStatement } from './execute.js';
import { mysqlInfo, parseMysqlConfig, type MysqlConfig } from './mysql.config.js';
import { readMysqlRows } from './read.js';
import { readIntoTable } from './read-into-table.js';
import { writeFromTable } from './write-from-table.js';
import { testMysql } from './test-connection.js';
import { writeMysqlRows } from './write.js';

const WRITE_MODES = new Set(['append', 'overwrite', 'upsert']);

function writeConfigOf(config: Record<string, unknown>, req: WriteRequest): MysqlConfig {
  const cfg = parseMysqlConfig(config);
  if (!WRITE_MODES.has(req.mode)) throw new ConnectorError(`unknown write mode "${String(req.mode)}"`, 'config_error');
  if (typeof req.table !== 'string' || req.table === '')
    throw new ConnectorError('a write needs a table', 'config_error');
  return cfg;
}

export const mysqlDriver: ConnectorDriver = {
  info: mysqlInfo,

  nodeFields: { source: ['params'], sink: [] },

  test: testMysql,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    // Parsing inside the generator reports a bad config from the first next(), like every other read failure.
    return (async function* () {
      yield* readMysqlRows(parseMysqlConfig(config), req);
    })();
  },

  async readIntoTable(config: Record<string, unknown>, req: ReadRequest, target: DuckDBTable) {
    return readIntoTable(parseMysqlConfig(config), req, target);
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    return writeMysqlRows(writeConfigOf(config, req), req, batches);
  },

  async writeFromTable(config: Record<string, unknown>, req: WriteRequest, source: DuckDBTable) {
    return writeFromTable(writeConfigOf(config, req), req, source);
  },

  async execute(config: Record<string, unknown>, sql: string, opts: ExecuteOptions = {}) {
    const cfg = parseMysqlConfig(config);
    if (sql.trim() === '') throw new ConnectorError('the statement is empty', 'config_error');
    return executeMysqlStatement(cfg, sql, opts);
  },
};
