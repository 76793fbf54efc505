/**
 * Reads a query as COPY CSV for the CSV hand-off (a postgres source straight into a postgres sink): `COPY (query) TO
 * STDOUT` streamed chunk by chunk, with no row ever parsed in JS, in one read-only snapshot whose text forms are the
 * typed read's (snapshot.ts: ISO dates, UTC, exact floats), so the database's own DateStyle or TimeZone never changes
 * a value on its way. Every type keeps PostgreSQL's own text form (numeric, int8, arrays, intervals exact).
 */
import { to as copyTo } from 'pg-copy-streams';
import type { CsvChunk, ReadRequest } from '../types.js';
import { openSession } from './pool.js';
import { toConnectorError } from './pg-errors.js';
import type { PostgresConfig } from './postgres.config.js';
import { oneStatement, paramsOf, sourceSql } from './read.js';
import { BEGIN_SNAPSHOT } from './snapshot.js';
import { cursorCsv } from './cursor-csv.js';
import { numericTypmod } from './pg-types.js';

/** PostgreSQL's `boolean`: its output is `t` and `f`, its text (a cast, and a typed write's) `true` and `false`. */
const BOOL_OID = 16;
const NUMERIC_OID = 1700;

/** The decimal places a numeric column declares (CsvChunk.scales): its typmod's scale, `any` without one. */
function declaredScale(field: { dataTypeID: number; dataTypeModifier: number }): number | 'any' | undefined {
  if (field.dataTypeID !== NUMERIC_OID) return undefined;
  return numericTypmod(field.dataTypeModifier)?.scale ?? 'any';
}

/**
 * The read's rows as the CSV carries them. A boolean's output (`t`) is what COPY prints, but a text column of the sink
 * would keep it as it is, where a typed write (and PostgreSQL's own cast) writes `true`: a query with a boolean column
 * is read by position with that column as its text. A boolean target takes either.
 */
function csvSelect(sql: string, fields: readonly { dataTypeID: number }[]): string | undefined {
  if (!fields.some((f) => f.dataTypeID === BOOL_OID)) return undefined;
  const names = fields.map((_f, i) => `c${i}`);
  const values = fields.map((f, i) => (f.dataTypeID === BOOL_OID ? `q.c${i}::text` : `q.c${i}`));
  return `select ${values.join(', ')} from (\n${sql}\n) as q(${names.join(', ')})`;
}

/** Yields CSV chunks as the server sends them; stops and closes the connection when the consumer stops early. */
export async function* readCsv(cfg: PostgresConfig, req: ReadRequest): AsyncGenerator<CsvChunk, { rows_read: number }> {
  const { signal } = req;
  const sql = sourceSql(cfg, req);
  const params = paramsOf(req);
  const session = await openSession(cfg, req).catch((err: unknown) => {
    throw toConnectorError(err, signal);
  });
  const { client } = session;
  try {
    await client.query(BEGIN_SNAPSHOT);
    // The newlines keep a trailing `-- comment` of the query from swallowing the closing parenthesis.
    // One statement (oneStatement): the COPY or the cursor below repeats the same text.
    const described = await client.query(oneStatement(`select * from (\n${sql}\n) as conduit_source limit 0`, params));
    const columns = described.fields.map((f) => f.name);
    const scales = described.fields.map(declaredScale);
    const select = csvSelect(sql, described.fields);
    let rowsRead = 0;
    if (params.length > 0) {
      const query = select ?? `select * from (\n${sql}\n) as conduit_source`;
      for await (const csv of cursorCsv(client, query, params, signal)) {
        rowsRead += csv.rows;
        yield { columns, csv: csv.text, scales };
      }
    } else {
      const out = client.query(copyTo(`copy (\n${select ?? sql}\n) to stdout with (format csv)`));
      for await (const csv of out as AsyncIterable<Buffer>) {
        signal?.throwIfAborted();
        yield { columns, csv, scales };
      }
      rowsRead = out.rowCount;
    }
    await client.query('commit');
    return { rows_read: rowsRead };
  } catch (err) {
    throw signal?.aborted ? signal.reason : toConnectorError(err, signal);
  } finally {
    await session.close();
  }
}
