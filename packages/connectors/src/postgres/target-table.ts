/** What PostgreSQL's catalog says about a sink's target table: whether it exists, its columns, its unique keys. */
import type pg from 'pg';

export interface TargetColumn {
  name: string;
  /** As format_type prints it: `numeric(12,2)`, `text[]`, `jsonb`, `timestamp with time zone`. */
  type: string;
}

/** The table's columns in order, or undefined when there is no such table. `table` is a quoted, qualified name. */
export async function targetColumns(client: pg.Client, table: string): Promise<TargetColumn[] | undefined> {
  const found = await client.query<{ oid: string | null }>('select to_regclass($1)::oid as oid', [table]);
  const oid = found.rows[0]?.oid;
  if (oid === null || oid === undefined) return undefined;
  const { rows } = await client.query<TargetColumn>(
    `select attname as name, format_type(atttypid, atttypmod) as type
       from pg_attribute where attrelid = $1 and attnum > 0 and not attisdropped order by attnum`,
    [oid],
  );
  return rows;
}

/** Whether `key` is exactly the columns of the table's primary key or of a unique, non-partial index (ON CONFLICT's rule). */
export async function isUniqueKey(client: pg.Client, table: string, key: readonly string[]): Promise<boolean> {
  const { rows } = await client.query<{ columns: string[] }>(
    `select array(
         select a.attname::text from unnest(i.indkey::int2[]) with ordinality k(attnum, n)
         join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
         where k.n <= i.indnkeyatts) as columns
       from pg_index i
      where i.indrelid = to_regclass($1) and i.indisunique and i.indpred is null and i.indexprs is null`,
    [table],
  );
  const wanted = new Set(key);
  return rows.some(({ columns }) => columns.length === wanted.size && columns.every((c) => wanted.has(c)));
}
