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
    let rowsRead = 0;
    if (params.length > 0) {
      for await (const csv of cursorCsv(client, `select * from (\n${sql}\n) as conduit_source`, params, signal)) {
        rowsRead += csv.rows;
        yield { columns, csv: csv.text };
      }
    } else {
      const out = client.query(copyTo(`copy (\n${sql}\n) to stdout with (format csv)`));
      for await (const csv of out as AsyncIterable<Buffer>) {
        signal?.throwIfAborted();
        yield { columns, csv };
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
