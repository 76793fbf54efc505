/**
 * What the typed file and S3 sink tests share: a table of the types issue 15 names (made in the run-like workspace of
 * run-workspace.ts), and a plain DuckDB that reads a written file back and compares it with the same table.
 */
import duckdb, { type DuckDBConnection } from '@duckdb/node-api';

export const MATRIX_COLUMNS: [string, string][] = [
  ['id', 'INTEGER'],
  ['amount', 'DECIMAL(38,10)'],
  ['price', 'DECIMAL(12,2)'],
  ['big', 'BIGINT'],
  ['huge', 'HUGEINT'],
  ['ratio', 'DOUBLE'],
  ['flag', 'BOOLEAN'],
  ['note', 'VARCHAR'],
  ['day', 'DATE'],
  ['at', 'TIMESTAMP'],
  ['instant', 'TIMESTAMP WITH TIME ZONE'],
  ['span', 'INTERVAL'],
  ['uid', 'UUID'],
  ['nums', 'INTEGER[]'],
  ['tags', 'VARCHAR[]'],
  ['pair', 'STRUCT(n INTEGER, s VARCHAR)'],
  ['raw', 'BLOB'],
  ['doc', 'JSON'],
];

// Row 3 is NULL in every column but its id.
const MATRIX_ROWS = `
  (1, 9999999999999999999999999999.9999999999, 9999999999.99, 9223372036854775807, 170141183460469231731687303715884105727,
   1e300, true, 'h' || chr(233) || 'llo "w", it''s ' || chr(127757) || chr(10) || 'line, 2', DATE '1900-02-28',
   TIMESTAMP '1900-01-01 00:00:00.000001', TIMESTAMPTZ '2024-02-29 23:59:59.999999+05:30',
   INTERVAL '-1 year -2 months 3 days -04:05:06.789001', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', [1, NULL, -3],
   ['a', 'b,c', 'q"x', NULL, '', 'it''s', 'NULL'], {'n': 1, 's': 'x, ''y'''}, '\\x00\\xFF\\x5C,"'::BLOB,
   '{"a": [1, 2.50, "x\\"y"], "b": null}'),
  (2, -0.0000000001, -9999999999.99, -9223372036854775808, -170141183460469231731687303715884105728, '-0'::DOUBLE,
   false, '', DATE '2024-02-29', TIMESTAMP '2024-02-29 12:34:56', TIMESTAMPTZ '1969-12-31 23:59:59.999999+00',
   INTERVAL '1 month -1 day 100:00:00.000001', '00000000-0000-0000-0000-000000000000', [], [], {'n': NULL, 's': ''},
   ''::BLOB, '[]'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (4, 0.1, 0.10, 0, 0, 0.1, NULL, 'NULL', DATE '1969-07-20', TIMESTAMP '2000-02-29 00:00:00', TIMESTAMPTZ 'infinity',
   INTERVAL '-00:00:00.000001', NULL, [NULL], [NULL], NULL, '\\x5C\\x2E'::BLOB, 'null')`;

export const matrixDdl = (name: string): string =>
  `create table ${name} (${MATRIX_COLUMNS.map(([c, t]) => `"${c}" ${t}`).join(', ')})`;

/** Creates table `name` with the matrix's columns and rows. */
export async function createMatrix(connection: DuckDBConnection, name: string): Promise<void> {
  await connection.run(matrixDdl(name));
  await connection.run(`insert into ${name} values ${MATRIX_ROWS}`);
}

/** The matrix's types as `read_csv`/`read_json` take them: `{'id': 'INTEGER', ...}`. */
export const declaredColumns = (replaced: Record<string, string> = {}): string =>
  `{${MATRIX_COLUMNS.map(([c, t]) => `'${c}': '${(replaced[c] ?? t).replace(/'/g, "''")}'`).join(', ')}}`;

/** A plain DuckDB holding the matrix as table `original`: the test's own view of the files written. */
export async function openChecker(): Promise<{ connection: DuckDBConnection; close(): void }> {
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await createMatrix(connection, 'original');
  return {
    connection,
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

export const rowsOf = async (c: DuckDBConnection, sql: string): Promise<unknown[]> =>
  (await c.runAndReadAll(sql)).getRowsJson();
export const typesOf = (c: DuckDBConnection, sql: string): Promise<unknown[]> =>
  rowsOf(c, `select column_name, column_type from (describe (${sql}))`);

/** `a except all b` and back, on the values and on their text (which tells -0 from 0); all must be empty. */
export async function differences(c: DuckDBConnection, a: string, b: string): Promise<unknown[]> {
  const text = (sql: string) => `select columns(*)::VARCHAR from (${sql})`;
  return [
    ...(await rowsOf(c, `(${a}) except all (${b})`)),
    ...(await rowsOf(c, `(${b}) except all (${a})`)),
    ...(await rowsOf(c, `${text(a)} except all ${text(b)}`)),
    ...(await rowsOf(c, `${text(b)} except all ${text(a)}`)),
  ];
}

/**
 * The matrix as a file of `format` can hold it: JSON lines cannot tell a JSON null from a missing value, and a JSON
 * column is re-serialised (2.50 -> 2.5).
 */
const matrixAsWritten = (format: 'parquet' | 'csv' | 'jsonl'): string =>
  format === 'jsonl' ? `select * replace (nullif(json(doc), 'null') as doc) from original` : 'select * from original';

/** What differs between the written file, read back by its format, and the matrix: empty when the file is the table. */
export async function differencesFromMatrix(format: 'parquet' | 'csv' | 'jsonl', file: string): Promise<unknown[]> {
  const checker = await openChecker();
  try {
    return await differences(checker.connection, readBack(format, file), matrixAsWritten(format));
  } finally {
    checker.close();
  }
}

const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * The file's rows as the matrix's types, by format: Parquet as written (HUGEINT cast back from its text, INTERVAL
 * rebuilt from its months, days and micros: docs/type-mapping.md), CSV and JSON lines read with the declared types
 * (a BLOB in JSON lines is base64).
 */
export function readBack(format: 'parquet' | 'csv' | 'jsonl', file: string): string {
  switch (format) {
    case 'parquet':
      return `select * replace (huge::HUGEINT as huge, to_months(span.months) + to_days(span.days) + to_microseconds(span.micros) as span)
        from read_parquet(${sqlString(file)})`;
    case 'csv':
      return `select * from read_csv(${sqlString(file)}, header = true, auto_detect = false, allow_quoted_nulls = false, columns = ${declaredColumns()})`;
    case 'jsonl':
      return `select * replace (from_base64(raw) as raw) from read_json(${sqlString(file)}, format = 'newline_delimited', columns = ${declaredColumns({ raw: 'VARCHAR' })})`;
  }
}
