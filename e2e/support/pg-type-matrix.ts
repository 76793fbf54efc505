/**
 * Issue 15's PostgreSQL type matrix, for the suites that send it somewhere and back (typed-data.e2e.ts through
 * PostgreSQL, typed-data-s3.e2e.ts through Parquet on S3): one table with every common type, NULL in every column of
 * row 3, and the checks the suites make on its copies.
 */
import type pg from 'pg';

const MATRIX_COLUMNS = `id int primary key, small smallint, regular int, big bigint, amount numeric(12,2), unbounded numeric,
  f real, d double precision, flag boolean, note text, short varchar(20), day date, ts timestamp, tstz timestamptz,
  span interval, uid uuid, doc json, docb jsonb, tags text[], nums int[], raw bytea, feeling mood`;

// Row 3 is NULL in every column but its id.
const MATRIX_ROWS = String.raw`
  (1, -32768, -2147483648, -9223372036854775808, -9999999999.99, 123456789012345678.123456789, 1.5, '-0', true,
   'héllo "wörld", it''s ✓ 🚀' || chr(10) || 'line, 2', 'a ''b'' "c"', '1969-07-20', '1900-01-01 00:00:00',
   '1969-12-31 23:59:59.999999+00', '-1 year -2 mons -3 days -04:05:06.789', '123e4567-e89b-12d3-a456-426614174000',
   '{"b": 1, "a": [1, "x\"y", null]}', '{"k": null, "n": 1.50}', array['a', 'b,c', 'd"e', 'f\g', NULL, '', 'NULL'],
   array[1, NULL, -3], '\x0001fe', 'happy'),
  (2, 32767, 2147483647, 9223372036854775807, 9999999999.99, -0.000000001, 3.4028235e38, 1e300, false,
   '', '', '2024-02-29', '2024-02-29 12:34:56.123456', '2024-02-29 12:34:56.123456+05',
   '1 mon -1 day 100:00:00.000001', '00000000-0000-0000-0000-000000000000', '[]', '"s"', '{}', '{}', '', 'sad'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL),
  (4, 0, 0, 0, 0.10, 42, 0.1, 0.1, NULL, 'NULL', 'x', '1900-02-28', '2000-02-29 00:00:00', '2000-01-01 00:00:00+00',
   '-00:00:00.000001', NULL, 'null', '1.5e300', array[NULL]::text[], array[2147483647], '\x5c2e', 'ok')`;

/** Creates the `mood` enum, `matrix` with its rows, and an empty `matrix_existing` of the same types. */
export async function createMatrix(db: pg.Client): Promise<void> {
  await db.query(`create type mood as enum ('sad', 'ok', 'happy')`);
  await db.query(`create table matrix (${MATRIX_COLUMNS})`);
  await db.query(`insert into matrix values ${MATRIX_ROWS}`);
  await db.query('create table matrix_existing (like matrix)');
}

// What the created table's columns are (docs/type-mapping.md, both directions); the unbounded numeric's scale is the
// largest its values have, so it is checked apart.
export const CREATED_TYPES: Record<string, string> = {
  id: 'integer',
  small: 'smallint',
  regular: 'integer',
  big: 'bigint',
  amount: 'numeric(12,2)',
  f: 'real',
  d: 'double precision',
  flag: 'boolean',
  note: 'text',
  short: 'text',
  day: 'date',
  ts: 'timestamp without time zone',
  tstz: 'timestamp with time zone',
  span: 'interval',
  uid: 'uuid',
  doc: 'jsonb',
  docb: 'jsonb',
  tags: 'text[]',
  nums: 'integer[]',
  raw: 'bytea',
  feeling: 'text',
};

/** The matrix's columns as the source's types (json as jsonb, which has equality), for `except` across tables. */
const AS_SOURCE_TYPES = `id, small, regular, big, amount, unbounded::numeric, f, d, flag, note, short::varchar(20), day, ts,
  tstz, span, uid, doc::jsonb, docb, tags, nums, raw, feeling::text::mood`;

/** Rows of `table` that `matrix` lacks (`extra`) and rows of `matrix` that `table` lacks (`missing`). */
export async function differencesFromMatrix(
  db: pg.Client,
  table: string,
): Promise<{ extra: unknown[]; missing: unknown[] }> {
  const original = `select ${AS_SOURCE_TYPES} from matrix`;
  const copy = `select ${AS_SOURCE_TYPES} from ${table}`;
  return {
    extra: (await db.query<Record<string, unknown>>(`${copy} except ${original}`)).rows,
    missing: (await db.query<Record<string, unknown>>(`${original} except ${copy}`)).rows,
  };
}

/** Each of `tables` holds the matrix's rows, by `except` both ways and by the texts `except` cannot see. */
export async function expectCopiesOfMatrix(db: pg.Client, tables: string[]): Promise<void> {
  for (const table of tables) {
    expect({ table, ...(await differencesFromMatrix(db, table)) }).toEqual({ table, extra: [], missing: [] });
    expect(await exactTexts(db, table)).toEqual(await exactTexts(db, 'matrix'));
  }
}

/** What `except` cannot see: -0 equals 0, and intervals compare normalised (1 day = 24 hours). */
export async function exactTexts(db: pg.Client, table: string): Promise<unknown[]> {
  return (
    await db.query<Record<string, string | null>>(
      `select id, d::text as d, span::text as span, tstz::text as tstz, raw::text as raw from ${table} order by id`,
    )
  ).rows;
}

/** `{column: format_type}` of `table`'s columns. */
export async function columnTypes(db: pg.Client, table: string): Promise<Record<string, string>> {
  const { rows } = await db.query<{ name: string; type: string }>(
    `select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
      where attrelid = $1::regclass and attnum > 0 and not attisdropped order by attnum`,
    [table],
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.type]));
}
