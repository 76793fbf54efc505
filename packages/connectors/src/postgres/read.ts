/** Streams a query's rows in batches through a server-side cursor, so memory stays bounded whatever the size. */
import type pg from 'pg';
import { ConnectorError } from '../connector-error.js';
import type { ReadRequest, Row } from '../types.js';
import { openSession } from './pool.js';
import { qualifiedTable } from './identifiers.js';
import { toConnectorError } from './pg-errors.js';
import type { PostgresConfig } from './postgres.config.js';

export const DEFAULT_READ_BATCH_SIZE = 5000;
const CURSOR = 'conduit_read_cursor';

/**
 * A source's query as it is first sent: with the extended protocol, which takes one statement, so a query that ends
 * its subquery and adds `; commit; ...` is refused before anything runs, rather than leaving the read-only snapshot
 * (a plain query string may hold several statements). The COPY that follows repeats a text refused here.
 */
export function oneStatement(text: string, values: unknown[] = []): pg.QueryConfig<unknown[]> {
  // queryMode is pg's own (lib/query.js), missing from its type declarations.
  return { text, values, queryMode: 'extended' } as pg.QueryConfig<unknown[]>;
}

/** `query` (trailing semicolons dropped; `$n` placeholders take `req.params`) or every row of `table`. */
export function sourceSql(cfg: PostgresConfig, req: ReadRequest): string {
  if (typeof req.query === 'string' && req.query.trim() !== '') return req.query.trim().replace(/[;\s]+$/, '');
  if (typeof req.table === 'string' && req.table !== '')
    return `select * from ${qualifiedTable(req.table, cfg.schema)}`;
  throw new ConnectorError('a read needs a query or a table', 'config_error');
}

function batchSizeOf(req: ReadRequest): number {
  const size = req.batchSize ?? DEFAULT_READ_BATCH_SIZE;
  if (!Number.isInteger(size) || size < 1)
    throw new ConnectorError(`batchSize must be a positive integer`, 'config_error');
  return size;
}

export function paramsOf(req: ReadRequest): unknown[] {
  const params = req['params'];
  if (params === undefined) return [];
  if (!Array.isArray(params)) throw new ConnectorError('params must be an array', 'config_error');
  return params;
}

/**
 * Yields batches of at most `batchSize` rows. Stops and closes the connection when the consumer stops early or
 * `req.signal` aborts (then it throws the signal's reason). Other failures are ConnectorErrors.
 */
export async function* readRows(cfg: PostgresConfig, req: ReadRequest): AsyncGenerator<Row[]> {
  const { signal } = req;
  const sql = sourceSql(cfg, req);
  const batchSize = batchSizeOf(req);
  const params = paramsOf(req);
  const session = await openSession(cfg, req).catch((err: unknown) => {
    throw toConnectorError(err, signal);
  });
  const { client } = session;
  try {
    // One snapshot for the whole read, and a source never writes.
    await client.query('begin isolation level repeatable read read only');
    await client.query(oneStatement(`declare ${CURSOR} no scroll cursor for ${sql}`, params));
    for (;;) {
      signal?.throwIfAborted();
      const { rows } = await client.query<Row>(`fetch forward ${batchSize} from ${CURSOR}`);
      signal?.throwIfAborted();
      if (rows.length > 0) yield rows;
      if (rows.length < batchSize) break;
    }
    await client.query('commit');
  } catch (err) {
    throw signal?.aborted ? signal.reason : toConnectorError(err, signal);
  } finally {
    // Closing (a pooled connection too, being mid-transaction) also ends the transaction and cursor when we stop early.
    await session.close();
  }
}
