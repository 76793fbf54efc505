/**
 * The typed MySQL source (`readIntoTable`): rows stream from the server as its own exact text (bytes for binary
 * columns) into a CSV file of the run's scratch folder, which DuckDB's CSV reader loads into a table created with the
 * types the field metadata declares (typed-columns.ts). Memory stays bounded: rows are read with backpressure and
 * written out every megabyte.
 */
import { randomUUID } from 'node:crypto';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { FieldPacket, TypeCastField } from 'mysql2';
import { ConnectorError } from '../connector-error.js';
import { quoteIdent, toDuckdbError } from '../duckdb/database.js';
import { csvReaderSizes, DEFAULT_TRANSFER_BUFFERS } from '../transfer-buffers.js';
import type { DuckDBTable, ReadRequest, TypedReadResult } from '../types.js';
import { openMysqlSession, type MysqlSessionOptions } from './pool.js';
import { toMysqlConnectorError } from './mysql-errors.js';
import type { MysqlConfig } from './mysql.config.js';
import { paramsOf, sourceSql } from './read.js';
import { typedColumns, type TypedColumn } from './typed-columns.js';
import { removeFile } from '../remove-file.js';

const FLUSH_BYTES = 1 << 20;
const ROW_BUFFER = 1000;
// Fields whose bytes we take as they are: binary strings, text (decoded as UTF-8, the connection's charset), BIT, and
// MySQL's JSON (which it labels with the binary charset, though the text is UTF-8).
const BYTE_FIELDS = new Set([
  'STRING',
  'VAR_STRING',
  'VARCHAR',
  'BLOB',
  'TINY_BLOB',
  'MEDIUM_BLOB',
  'LONG_BLOB',
  'BIT',
  'GEOMETRY',
  'ENUM',
  'SET',
  'JSON',
]);

const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** Every value as the server sent it: no numbers, dates or JSON parsed in JS on the way. */
function rawValue(field: TypeCastField): string | Buffer | null {
  return BYTE_FIELDS.has(field.type) ? field.buffer() : field.string();
}

export async function readIntoTable(cfg: MysqlConfig, req: ReadRequest, target: DuckDBTable): Promise<TypedReadResult> {
  const sql = sourceSql(req);
  const params = paramsOf(req);
  const file = join(target.scratchDir, `mysql-read-${randomUUID()}.csv`);
  try {
    const { columns, rows, bytes } = await streamToCsv(cfg, sql, params, file, req);
    await loadCsv(target, columns, file, bytes);
    return {
      rows,
      columns: columns.map(({ name, type, source_type }) => ({ name, type, ...(source_type ? { source_type } : {}) })),
    };
  } finally {
    await removeFile(file);
  }
}

async function streamToCsv(
  cfg: MysqlConfig,
  sql: string,
  params: unknown[],
  file: string,
  opts: MysqlSessionOptions,
): Promise<{ columns: TypedColumn[]; rows: number; bytes: number }> {
  const { signal } = opts;
  const session = await openMysqlSession(cfg, opts).catch((err: unknown) => {
    throw toMysqlConnectorError(err, signal);
  });
  const { connection } = session;
  const out = await open(file, 'wx');
  let finished = false;
  try {
    // TIMESTAMP values are stored in UTC; with a UTC session the server's text is UTC too.
    await connection.promise().query("set time_zone = '+00:00'");
    const query = connection.query({ sql, values: params, rowsAsArray: true, typeCast: rawValue });
    let columns: TypedColumn[] | undefined;
    let fieldsError: Error | undefined;
    query.on('fields', (fields: FieldPacket[]) => {
      try {
        columns = typedColumns(fields);
      } catch (err) {
        fieldsError = err instanceof Error ? err : new Error(String(err));
      }
    });
    const stream = query.stream({ highWaterMark: ROW_BUFFER });
    let rows = 0;
    let bytes = 0;
    let pending = '';
    try {
      for await (const row of stream as AsyncIterable<(string | Buffer | null)[]>) {
        if (fieldsError) throw fieldsError;
        pending += encodeRow(columns!, row);
        rows++;
        if (pending.length >= FLUSH_BYTES) {
          signal?.throwIfAborted();
          bytes += (await out.write(pending)).bytesWritten;
          pending = '';
        }
      }
    } finally {
      stream.destroy();
    }
    if (fieldsError) throw fieldsError;
    if (!columns)
      throw new ConnectorError('the query returned no rows and no columns: a source needs a SELECT', 'config_error');
    bytes += (await out.write(pending)).bytesWritten;
    signal?.throwIfAborted();
    finished = true;
    return { columns, rows, bytes };
  } catch (err) {
    throw signal?.aborted ? signal.reason : toMysqlConnectorError(err, signal);
  } finally {
    await out.close();
    // Stopping early leaves unread rows on the wire: cut the connection rather than drain them.
    await session.close(finished ? 'finished' : 'stopped');
  }
}

/** One CSV line: NULL is an empty unquoted field, every other value is quoted (so '' stays an empty string). */
function encodeRow(columns: readonly TypedColumn[], row: readonly (string | Buffer | null)[]): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) {
    const value = row[i];
    if (i > 0) line += ',';
    if (value !== null && value !== undefined) line += columns[i]!.encode(value);
  }
  return line + '\n';
}

/** Creates the node's table with the declared types and fills it with DuckDB's CSV reader. */
async function loadCsv(
  target: DuckDBTable,
  columns: readonly TypedColumn[],
  file: string,
  bytes: number,
): Promise<void> {
  const table = quoteIdent(target.table);
  const sizes = csvReaderSizes(target.buffers ?? DEFAULT_TRANSFER_BUFFERS, bytes);
  const declared = columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ');
  // Bytes travel as hex text and become BLOBs here; everything else is read with its declared type.
  const fileTypes = columns
    .map((c, i) => `${sqlString(`c${i}`)}: ${sqlString(c.source === 'bytes' ? 'VARCHAR' : c.type)}`)
    .join(', ');
  const projection = columns.map((c, i) => (c.source === 'bytes' ? `from_hex(c${i})` : `c${i}`)).join(', ');
  // One transaction: a failed load leaves no half-filled table behind.
  await target.connection.run('begin transaction');
  try {
    await target.connection.run(`create or replace table ${table} (${declared})`);
    await target.connection.run(
      `insert into ${table} select ${projection} from read_csv(${sqlString(file)}, columns = {${fileTypes}}, header = false, ` +
        `auto_detect = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, ` +
        // A row's longest CSV line, and DuckDB's read buffer, from the run's memory limit (DuckDB refuses longer rows),
        // no larger than the file needs.
        `max_line_size = ${sizes.maxLineBytes}, buffer_size = ${sizes.bufferBytes})`,
    );
    await target.connection.run('commit');
  } catch (err) {
    await target.connection.run('rollback').catch(() => undefined);
    throw toDuckdbError(err);
  }
}
