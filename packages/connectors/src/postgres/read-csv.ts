/**
 * Reads a query as COPY CSV: `COPY (query) TO STDOUT` streamed chunk by chunk, with no row ever parsed in JS, in
 * one read-only snapshot. Every type keeps PostgreSQL's own text form (numeric, int8, arrays, intervals exact).
 */
import { to as copyTo } from 'pg-copy-streams';
import type { CsvChunk, ReadRequest } from '../types.js';
import { openSession } from './pool.js';
import { columnsOf, encodeCsvBatch } from './copy-csv.js';
import { toConnectorError } from './pg-errors.js';
import type { PostgresConfig } from './postgres.config.js';
import { oneStatement, paramsOf, readRows, sourceSql } from './read.js';

/** Yields CSV chunks as the server sends them; stops and closes the connection when the consumer stops early. */
export async function* readCsv(cfg: PostgresConfig, req: ReadRequest): AsyncGenerator<CsvChunk, { rows_read: number }> {
  // COPY takes no bind parameters: a query with `params` goes through the cursor and is encoded here instead.
  if (paramsOf(req).length > 0) return yield* encodedRows(cfg, req);
  const { signal } = req;
  const sql = sourceSql(cfg, req);
  const session = await openSession(cfg, req).catch((err: unknown) => {
    throw toConnectorError(err, signal);
  });
  const { client } = session;
  try {
    await client.query('begin isolation level repeatable read read only');
    // The newlines keep a trailing `-- comment` of the query from swallowing the closing parenthesis.
    // One statement (oneStatement): the COPY below repeats the same text.
    const described = await client.query(oneStatement(`select * from (\n${sql}\n) as conduit_source limit 0`));
    const columns = described.fields.map((f) => f.name);
    const out = client.query(copyTo(`copy (\n${sql}\n) to stdout with (format csv)`));
    for await (const csv of out as AsyncIterable<Buffer>) {
      signal?.throwIfAborted();
      yield { columns, csv };
    }
    await client.query('commit');
    return { rows_read: out.rowCount };
  } catch (err) {
    throw signal?.aborted ? signal.reason : toConnectorError(err, signal);
  } finally {
    await session.close();
  }
}

async function* encodedRows(cfg: PostgresConfig, req: ReadRequest): AsyncGenerator<CsvChunk, { rows_read: number }> {
  let rowsRead = 0;
  let columns: string[] | undefined;
  for await (const rows of readRows(cfg, req)) {
    columns ??= columnsOf(rows);
    rowsRead += rows.length;
    yield { columns, csv: encodeCsvBatch(rows, columns) };
  }
  return { rows_read: rowsRead };
}
