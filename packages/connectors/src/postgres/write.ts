/**
 * Bulk writes with COPY FROM STDIN: append copies into the table; overwrite truncates and copies in one
 * transaction; upsert copies into a temporary table, then merges with INSERT ... ON CONFLICT in one transaction.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { ConnectorError } from '../connector-error.js';
import type { CsvChunk, Row, WriteRequest } from '../types.js';
import { openSession } from './pool.js';
import { columnsOf, encodeCsvBatch } from './copy-csv.js';
import { qualifiedTable, quoteIdent } from './identifiers.js';
import { toConnectorError } from './pg-errors.js';
import { numericScaleOf, roundingMessage } from './duckdb-to-pg-types.js';
import { isUniqueKey, targetColumns } from './target-table.js';
import { BEGIN_WRITE } from './snapshot.js';
import type { PostgresConfig } from './postgres.config.js';

// Orders the copied rows so that, of several rows with one key, the last one wins.
const ORDINAL_COLUMN = '_conduit_ordinal';

export async function writeRows(
  cfg: PostgresConfig,
  req: WriteRequest,
  batches: AsyncIterable<Row[]>,
): Promise<{ rows_written: number }> {
  return writeCsv(cfg, req, encodeBatches(batches));
}

/**
 * The CSV hand-off's condition (ConnectorDriver.csvTargetReady): the table exists, takes no new columns, and an
 * upsert's key is one of its unique keys (else the typed write's own check says what is wrong).
 */
export async function csvTargetReady(cfg: PostgresConfig, req: WriteRequest): Promise<boolean> {
  if (req.schema_evolution === 'add_columns') return false;
  const session = await openSession(cfg, req).catch((err: unknown) => {
    throw toConnectorError(err, req.signal);
  });
  try {
    const table = qualifiedTable(req.table, cfg.schema);
    if ((await targetColumns(session.client, table)) === undefined) return false;
    return req.mode !== 'upsert' || (await isUniqueKey(session.client, table, req.key ?? []));
  } catch (err) {
    throw toConnectorError(err, req.signal);
  } finally {
    await session.close();
  }
}

/** Writes COPY CSV chunks; the first chunk's columns name the target columns. */
export async function writeCsv(
  cfg: PostgresConfig,
  req: WriteRequest,
  chunks: AsyncIterable<CsvChunk>,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const target = qualifiedTable(req.table, cfg.schema);
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await firstNonEmptyChunk(iterator);
  const columns = first ? first.columns : [];
  const key = req.mode === 'upsert' ? upsertKey(req, columns, first !== undefined) : [];
  if (!first && req.mode !== 'overwrite') return { rows_written: 0 };

  const session = await openSession(cfg, req).catch((err: unknown) => {
    throw toConnectorError(err, signal);
  });
  const { client } = session;
  try {
    // The CSV hand-off's text is read as the typed write reads its own (snapshot.ts).
    await client.query(BEGIN_WRITE);
    let rowsWritten = 0;
    if (req.mode === 'overwrite') await client.query(`truncate table ${target}`);
    const rounded = first ? await roundedColumns(client, target, first) : new Map<string, string>();
    if (first && req.mode === 'upsert') {
      rowsWritten = await upsert(client, target, columns, key, csvOf(first, iterator), signal, rounded);
    } else if (first && rounded.size > 0) {
      rowsWritten = await checkedCopyInto(client, target, columns, csvOf(first, iterator), signal, rounded);
    } else if (first) {
      rowsWritten = await copyInto(client, target, columns, csvOf(first, iterator), signal);
    }
    await client.query('commit');
    return { rows_written: rowsWritten };
  } catch (err) {
    // Closing without commit makes the server roll the transaction back.
    throw signal?.aborted ? signal.reason : toConnectorError(err, signal);
  } finally {
    await session.close();
  }
}

/** Batches as CSV chunks, the columns being the first non-empty batch's. */
async function* encodeBatches(batches: AsyncIterable<Row[]>): AsyncGenerator<CsvChunk> {
  let columns: string[] | undefined;
  for await (const rows of batches) {
    if (rows.length === 0) continue;
    columns ??= columnsOf(rows);
    yield { columns, csv: encodeCsvBatch(rows, columns) };
  }
}

async function firstNonEmptyChunk(iterator: AsyncIterator<CsvChunk>): Promise<CsvChunk | undefined> {
  for (;;) {
    const next = await iterator.next();
    if (next.done) return undefined;
    if (next.value.csv.length > 0) return next.value;
  }
}

function upsertKey(req: WriteRequest, columns: readonly string[], hasRows: boolean): string[] {
  const key = req.key ?? [];
  if (key.length === 0) throw new ConnectorError('upsert needs a key', 'config_error');
  const missing = key.filter((k) => !columns.includes(k));
  if (hasRows && missing.length > 0) {
    throw new ConnectorError(`upsert key column(s) ${missing.join(', ')} not among the rows' columns`, 'config_error');
  }
  return key;
}

async function* csvOf(first: CsvChunk, rest: AsyncIterator<CsvChunk>): AsyncGenerator<string | Buffer> {
  try {
    yield first.csv;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      if (next.value.csv.length > 0) yield next.value.csv;
    }
  } finally {
    // When the copy fails part way, tell the producer to stop too.
    await rest.return?.();
  }
}

/** Streams the chunks into COPY with backpressure; answers the rows copied. */
export async function copyInto(
  client: pg.Client,
  table: string,
  columns: readonly string[],
  chunks: AsyncIterable<string | Buffer>,
  signal: AbortSignal | undefined,
): Promise<number> {
  const columnList = columns.map(quoteIdent).join(', ');
  const copy = client.query(copyFrom(`copy ${table} (${columnList}) from stdin with (format csv)`));
  await pipeline(Readable.from(chunks), copy, signal ? { signal } : {});
  return copy.rowCount;
}

/**
 * Columns whose text PostgreSQL would round on its way into the target (a numeric(p,s) column fed a numeric the
 * source declares with more decimal places, or unbounded), with the target column's type: their rows are checked first.
 */
async function roundedColumns(client: pg.Client, target: string, first: CsvChunk): Promise<Map<string, string>> {
  const rounded = new Map<string, string>();
  const { scales } = first;
  if (!scales?.some((scale) => scale !== undefined)) return rounded;
  const types = new Map((await targetColumns(client, target))?.map((c) => [c.name, c.type]));
  first.columns.forEach((name, i) => {
    const source = scales[i];
    const type = types.get(name) ?? '';
    const scale = numericScaleOf(type);
    if (source !== undefined && scale !== undefined && (source === 'any' || source > scale)) rounded.set(name, type);
  });
  return rounded;
}

/**
 * Copies into a temporary table of the target's column types but none of its constraints (with an ordinal for an
 * upsert), `rounded` columns unbounded numeric there; fails, naming the column, when one of those holds a value the
 * target's column would round. Answers the staging table's name.
 */
async function stagedCopy(
  client: pg.Client,
  target: string,
  columns: readonly string[],
  chunks: AsyncIterable<string | Buffer>,
  signal: AbortSignal | undefined,
  options: { rounded?: ReadonlyMap<string, string>; ordinal?: boolean },
): Promise<string> {
  const staging = quoteIdent(`conduit_staging_${randomUUID().replace(/-/g, '')}`);
  const rounded = [...(options.rounded ?? new Map<string, string>())];
  await client.query(
    `create temporary table ${staging} on commit drop as select ${columns.map(quoteIdent).join(', ')} from ${target} with no data`,
  );
  for (const [name] of rounded)
    await client.query(`alter table ${staging} alter column ${quoteIdent(name)} type numeric`);
  if (options.ordinal) {
    await client.query(
      `alter table ${staging} add column ${quoteIdent(ORDINAL_COLUMN)} bigint generated always as identity`,
    );
  }
  await copyInto(client, staging, columns, chunks, signal);
  if (rounded.length > 0) {
    const checks = rounded.map(
      ([name, type]) =>
        `coalesce(bool_or(${quoteIdent(name)} <> round(${quoteIdent(name)}, ${numericScaleOf(type)})), false)`,
    );
    const { rows } = await client.query<unknown[]>({
      text: `select ${checks.join(', ')} from ${staging}`,
      rowMode: 'array',
    });
    const at = rows[0]?.indexOf(true) ?? -1;
    if (at >= 0) {
      const [name, type] = rounded[at]!;
      throw new ConnectorError(roundingMessage(name, type), 'config_error');
    }
  }
  return staging;
}

/** Copies through a staging table (stagedCopy), then appends its rows to the target. */
async function checkedCopyInto(
  client: pg.Client,
  target: string,
  columns: readonly string[],
  chunks: AsyncIterable<string | Buffer>,
  signal: AbortSignal | undefined,
  rounded: ReadonlyMap<string, string>,
): Promise<number> {
  const staging = await stagedCopy(client, target, columns, chunks, signal, { rounded });
  const columnList = columns.map(quoteIdent).join(', ');
  const result = await client.query(`insert into ${target} (${columnList}) select ${columnList} from ${staging}`);
  return result.rowCount ?? 0;
}

/** Copies into a staging table (stagedCopy), then merges it with INSERT ... ON CONFLICT (last row of a key wins). */
export async function upsert(
  client: pg.Client,
  target: string,
  columns: readonly string[],
  key: readonly string[],
  chunks: AsyncIterable<string | Buffer>,
  signal: AbortSignal | undefined,
  rounded?: ReadonlyMap<string, string>,
): Promise<number> {
  const staging = await stagedCopy(client, target, columns, chunks, signal, { rounded, ordinal: true });
  const columnList = columns.map(quoteIdent).join(', ');
  const keyList = key.map(quoteIdent).join(', ');
  const updates = columns.filter((c) => !key.includes(c)).map((c) => `${quoteIdent(c)} = excluded.${quoteIdent(c)}`);
  const onConflict = updates.length > 0 ? `do update set ${updates.join(', ')}` : 'do nothing';
  const result = await client.query(
    `insert into ${target} (${columnList})
     select ${columnList} from (
       select distinct on (${keyList}) * from ${staging} order by ${keyList}, ${quoteIdent(ORDINAL_COLUMN)} desc
     ) latest
     on conflict (${keyList}) ${onConflict}`,
  );
  return result.rowCount ?? 0;
}
