/**
 * A typed read: the query's columns declared from PostgreSQL's own catalog (RowDescription OIDs and typmods, pg_type
 * for the rest), its rows moved in bulk as `COPY ... TO STDOUT (FORMAT csv)` into a file of the run's scratch folder,
 * and loaded from there by DuckDB's CSV reader with the declared types. One read-only snapshot; the file is removed.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { CsvPartFiles } from '../csv-parts.js';
import { quoteIdent as duckIdent } from '../duckdb/database.js';
import { DEFAULT_TRANSFER_BUFFERS } from '../transfer-buffers.js';
import type { DuckDBTable, ReadRequest, TypedReadResult } from '../types.js';
import { openSession, type SessionOptions } from './pool.js';
import { loadCsvPartsIntoTable, type LoadColumn } from './duckdb-load.js';
import { toConnectorError } from './pg-errors.js';
import {
  DEFAULT_SERVER_TYPES,
  MONEY_OIDS,
  planColumns,
  unknownOids,
  type PgField,
  type PgTypeRow,
} from './pg-types.js';
import type { TypeNames } from './type-names.js';
import type { PostgresConfig } from './postgres.config.js';
import { oneStatement, paramsOf, sourceSql } from './read.js';
import { BEGIN_SNAPSHOT } from './snapshot.js';
import { cursorCsv } from './cursor-csv.js';

const TYPE_ROWS = `with recursive t as (
    select oid, typname, typtype, typcategory, typelem, typbasetype, typtypmod from pg_type where oid = any($1::oid[])
  union
    select p.oid, p.typname, p.typtype, p.typcategory, p.typelem, p.typbasetype, p.typtypmod
    from pg_type p join t on p.oid = t.typelem or p.oid = t.typbasetype
  ) select oid, typname, typtype, typcategory, typelem, typbasetype, typtypmod from t`;

/** COPY output is cut into parts of about this size: DuckDB loads one while PostgreSQL sends the next. */
const PART_BYTES = 64 * 1024 * 1024;

export async function readIntoTable(
  cfg: PostgresConfig,
  req: ReadRequest,
  target: DuckDBTable,
): Promise<TypedReadResult> {
  const sql = sourceSql(cfg, req);
  const params = paramsOf(req);
  const parts = new CsvPartFiles(
    join(target.scratchDir, `pg-read-${randomUUID()}`),
    PART_BYTES,
    (target.buffers ?? DEFAULT_TRANSFER_BUFFERS).streamChunkBytes,
  );
  // A load that fails stops the COPY, as the run's own abort does.
  const loadFailed = new AbortController();
  const signal = req.signal ? AbortSignal.any([req.signal, loadFailed.signal]) : loadFailed.signal;
  let declared: (columns: LoadColumn[]) => void = () => undefined;
  const columnsKnown = new Promise<LoadColumn[]>((resolve) => (declared = resolve));
  try {
    const copying = copyToParts(cfg, sql, params, parts, declared, { signal, tenantId: req.tenantId, pool: req.pool });
    const loading = Promise.race([columnsKnown, copying]).then((columns) =>
      loadCsvPartsIntoTable(target, parts.parts(), columns, (file) => parts.bytesOf(file)),
    );
    loading.catch((err: unknown) => loadFailed.abort(err));
    const [copied, loaded] = await Promise.allSettled([copying, loading]);
    req.signal?.throwIfAborted();
    if (loaded.status === 'rejected') throw loaded.reason;
    if (copied.status === 'rejected') {
      // The load took every part the stream ended with; the snapshot's end failed after it: not a whole read.
      await target.connection.run(`drop table if exists ${duckIdent(target.table)}`);
      throw copied.reason;
    }
    return loaded.value;
  } finally {
    await parts.dispose();
  }
}

/**
 * Declares the columns (to `declared`, at once) and writes the rows to `out` as COPY CSV, in one read-only snapshot.
 * The copy streams with backpressure: a slow disk pauses the connection, so no more than a few chunks are held here.
 * A failure destroys `out`, so its reader fails too rather than taking what came for the whole.
 */
async function copyToParts(
  cfg: PostgresConfig,
  sql: string,
  params: unknown[],
  out: Writable,
  declared: (columns: LoadColumn[]) => void,
  opts: SessionOptions & { signal: AbortSignal },
): Promise<LoadColumn[]> {
  const { signal } = opts;
  const session = await openSession(cfg, opts).catch((err: unknown) => {
    throw toConnectorError(err, signal);
  });
  const { client, typeNames } = session;
  try {
    await client.query(BEGIN_SNAPSHOT);
    // The newlines keep a trailing `-- comment` of the query from swallowing the closing parenthesis.
    // One statement (oneStatement): the COPY below repeats the same text.
    const described = await client.query(oneStatement(`select * from (\n${sql}\n) as conduit_source limit 0`, params));
    const fields: PgField[] = described.fields.map((f) => ({
      name: f.name,
      oid: f.dataTypeID,
      typmod: f.dataTypeModifier,
    }));
    const columns = await declareColumns(client, fields, typeNames);
    const positional = columns.map((_c, i) => `c${i}`);
    const normalised = columns.map((c, i) => `${c.plan.pg(`q.c${i}`)} as c${i}`).join(', ');
    const select = `select ${normalised} from (\n${sql}\n) as q(${positional.join(', ')})`;
    declared(columns);
    if (params.length > 0) await cursorToFile(client, select, params, out, signal);
    else await pipeline(client.query(copyTo(`copy (${select}) to stdout with (format csv)`)), out);
    await client.query('commit');
    return columns;
  } catch (err) {
    const failure: unknown = signal.aborted ? signal.reason : toConnectorError(err, signal);
    out.destroy(failure instanceof Error ? failure : new Error(String(failure)));
    throw failure;
  } finally {
    await session.close();
  }
}

/**
 * Each field's plan, with pg_type looked up once for the types that are not built in, and each type's name as
 * `format_type` prints it: asked of the server unless every field's is kept with the pool (type-names.ts).
 */
async function declareColumns(
  client: pg.Client,
  fields: readonly PgField[],
  typeNames: TypeNames | undefined,
): Promise<LoadColumn[]> {
  const unknown = unknownOids(fields);
  const catalog = new Map<number, PgTypeRow>();
  if (unknown.length > 0) {
    const { rows } = await client.query<PgTypeRow>(TYPE_ROWS, [unknown]);
    for (const row of rows)
      catalog.set(Number(row.oid), {
        ...row,
        oid: Number(row.oid),
        typelem: Number(row.typelem),
        typbasetype: Number(row.typbasetype),
      });
  }
  // money's decimal places are the server's lc_monetary's (two for most, none for JPY, three for KWD).
  const server = fields.some((f) => MONEY_OIDS.has(f.oid))
    ? {
        moneyScale: Number((await client.query<{ s: number }>('select scale(0::money::numeric) as s')).rows[0]?.s ?? 2),
      }
    : DEFAULT_SERVER_TYPES;
  const plans = planColumns(fields, catalog, server);
  const names = await columnTypeNames(client, fields, typeNames);
  return fields.map((f, i) => ({ name: f.name, sourceType: names[i]!, plan: plans[i]! }));
}

/** The fields' type names, as `format_type` prints them; a built-in type's asked once per pool (type-names.ts). */
async function columnTypeNames(
  client: pg.Client,
  fields: readonly PgField[],
  typeNames: TypeNames | undefined,
): Promise<string[]> {
  const kept = fields.map((f) => typeNames?.get(f));
  if (kept.every((name) => name !== undefined)) return kept;
  const { rows } = await client.query<{ name: string }>(
    'select format_type(o, nullif(m, -1)) as name from unnest($1::oid[], $2::int[]) with ordinality as u(o, m, i) order by i',
    [fields.map((f) => f.oid), fields.map((f) => f.typmod)],
  );
  const names = rows.map((r) => r.name);
  // Only a built-in type's unqualified name is kept (type-names.ts).
  fields.forEach((f, i) => typeNames?.set(f, names[i]!));
  return names;
}

/** The cursor's CSV (cursor-csv.ts) into `out`, with backpressure; `out` is ended only once every row is written. */
async function cursorToFile(
  client: pg.Client,
  select: string,
  params: unknown[],
  out: Writable,
  signal?: AbortSignal,
): Promise<void> {
  const finished = new Promise<void>((resolve, reject) => {
    out.once('finish', resolve);
    out.once('error', reject);
  });
  // A failure destroys `out` instead (copyToParts), never ends it.
  finished.catch(() => undefined);
  for await (const { text } of cursorCsv(client, select, params, signal)) {
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  out.end();
  await finished;
}
