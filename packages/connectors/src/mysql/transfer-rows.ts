/**
 * Moving a DuckDB table's rows into a MySQL table inside the write's transaction, two ways: a CSV file that DuckDB
 * writes in the run's scratch folder, streamed to the server with LOAD DATA LOCAL INFILE (where the server allows
 * local_infile), else multi-row INSERTs of at most ~1 MB each, from DuckDB's result chunk by chunk. Either way the
 * values are DuckDB's own text (duckdb-to-mysql-types.ts) and any warning the server gives (a value cut, rounded or
 * refused) fails the write instead of changing data quietly.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2';
import type { Connection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { ConnectorError } from '../connector-error.js';
import { quoteIdent, toDuckdbError } from '../duckdb/database.js';
import type { DuckDBTable } from '../types.js';
import type { WriteColumn } from './duckdb-to-mysql-types.js';
import { removeFile } from '../remove-file.js';

const STATEMENT_BYTES = 1_000_000;
// MySQL 8 warns that VALUES() in ON DUPLICATE KEY UPDATE is deprecated; MariaDB has no other spelling.
const HARMLESS_WARNINGS = new Set([1287]);

export interface Transfer {
  /** `db`.`table`, quoted. */
  target: string;
  columns: readonly WriteColumn[];
  /** Upsert: the key; every other column takes the incoming value. Null for plain inserts. */
  upsertKey: readonly string[] | null;
  signal?: AbortSignal;
}

const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;
const textSelect = (source: DuckDBTable, columns: readonly WriteColumn[]): string =>
  `select ${columns.map((c) => c.text).join(', ')} from ${quoteIdent(source.table)}`;

/** Does the server take LOAD DATA LOCAL? (off by default in MySQL 8, on in MariaDB) */
export async function localInfileAllowed(connection: Connection): Promise<boolean> {
  const [rows] = await connection.query<RowDataPacket[]>('select @@global.local_infile as allowed');
  return Number(rows[0]?.['allowed']) === 1;
}

/** Fails with the server's own words when the last statement left warnings. */
async function failOnWarnings(connection: Connection, header: ResultSetHeader): Promise<void> {
  if (header.warningStatus === 0) return;
  const [warnings] = await connection.query<RowDataPacket[]>('show warnings limit 5');
  const real = warnings.filter((w) => !HARMLESS_WARNINGS.has(Number(w['Code'])));
  if (real.length === 0) return;
  const messages = real.map((w) => String(w['Message'])).join('; ');
  throw new ConnectorError(`the server did not take every value as it is: ${messages}`, 'config_error');
}

function upsertTail(columns: readonly WriteColumn[], key: readonly string[]): string {
  const updates = columns
    .filter((c) => !key.includes(c.name))
    .map((c) => `${mysql.escapeId(c.name)} = values(${mysql.escapeId(c.name)})`);
  const self = mysql.escapeId(key[0]);
  return ` on duplicate key update ${updates.length > 0 ? updates.join(', ') : `${self} = ${self}`}`;
}

/** LOAD DATA LOCAL INFILE of a CSV file DuckDB writes; an upsert loads a temporary copy of the table first. */
export async function loadWithInfile(connection: Connection, source: DuckDBTable, transfer: Transfer): Promise<void> {
  const file = join(source.scratchDir, `mysql-write-${randomUUID()}.csv`);
  try {
    try {
      // Every value quoted, NULL as the bare word NULL: LOAD DATA reads them back apart without escapes.
      await source.connection.run(
        `copy (${textSelect(source, transfer.columns)}) to ${sqlString(file)} ` +
          `(format csv, header false, delimiter ',', quote '"', escape '"', nullstr 'NULL', force_quote *)`,
      );
    } catch (err) {
      throw toDuckdbError(err);
    }
    const { columns, upsertKey } = transfer;
    const staging = upsertKey ? mysql.escapeId(`conduit_upsert_${randomUUID().replace(/-/g, '')}`) : null;
    if (staging) await connection.query(`create temporary table ${staging} like ${transfer.target}`);
    const fields = columns.map((c, i) => (c.hex || c.bit ? `@v${i}` : mysql.escapeId(c.name))).join(', ');
    const unhex = columns.flatMap((c, i) => {
      if (c.hex) return [`${mysql.escapeId(c.name)} = unhex(@v${i})`];
      return c.bit ? [`${mysql.escapeId(c.name)} = cast(@v${i} as unsigned)`] : [];
    });
    // In the staging table a repeated key replaces the earlier row: the last one wins, as in a row-by-row upsert.
    const [loaded] = await connection.query<ResultSetHeader>({
      sql:
        `load data local infile 'conduit.csv' ${staging ? 'replace ' : ''}into table ${staging ?? transfer.target} character set utf8mb4 ` +
        `fields terminated by ',' optionally enclosed by '"' escaped by '' lines terminated by '\\n' (${fields})` +
        (unhex.length > 0 ? ` set ${unhex.join(', ')}` : ''),
      // The one file this statement may send, whatever name the server asks for.
      infileStreamFactory: () => createReadStream(file),
    });
    await failOnWarnings(connection, loaded);
    if (staging && upsertKey) {
      const names = columns.map((c) => mysql.escapeId(c.name)).join(', ');
      const [merged] = await connection.query<ResultSetHeader>(
        `insert into ${transfer.target} (${names}) select ${names} from ${staging}${upsertTail(columns, upsertKey)}`,
      );
      await failOnWarnings(connection, merged);
      await connection.query(`drop temporary table ${staging}`);
    }
  } finally {
    await removeFile(file);
  }
}

/** Multi-row INSERTs from DuckDB's result, one chunk (~2048 rows) in memory at a time. */
export async function insertInBatches(connection: Connection, source: DuckDBTable, transfer: Transfer): Promise<void> {
  const { columns, upsertKey, signal } = transfer;
  const head = `insert into ${transfer.target} (${columns.map((c) => mysql.escapeId(c.name)).join(', ')}) values `;
  const tail = upsertKey ? upsertTail(columns, upsertKey) : '';
  let tuples: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (tuples.length === 0) return;
    const [header] = await connection.query<ResultSetHeader>(head + tuples.join(', ') + tail);
    await failOnWarnings(connection, header);
    tuples = [];
    bytes = 0;
  };
  let result;
  try {
    result = await source.connection.stream(textSelect(source, columns));
  } catch (err) {
    throw toDuckdbError(err);
  }
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    signal?.throwIfAborted();
    for (const row of chunk.getRows()) {
      const values = row.map((value, i) => {
        if (value === null) return 'NULL';
        const column = columns[i]!;
        if (column.hex) return `X'${String(value)}'`;
        return column.bit ? `cast(${mysql.escape(String(value))} as unsigned)` : mysql.escape(String(value));
      });
      const tuple = `(${values.join(', ')})`;
      tuples.push(tuple);
      bytes += tuple.length;
      if (bytes >= STATEMENT_BYTES) await flush();
    }
  }
  await flush();
}
