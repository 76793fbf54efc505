/** Parquet files for typed-read tests, written by a DuckDB of the test's own (not sandboxed). */
import duckdb from '@duckdb/node-api';

/** Writes `select` as a Parquet file with a DuckDB of the test's own (not sandboxed). */
export async function writeParquet(path: string, select: string): Promise<void> {
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  try {
    await c.run(`set TimeZone = 'UTC'`);
    await c.run(`copy (${select}) to '${path}' (format parquet)`);
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

/** The hard cases, as a Parquet file declares them. */
export const PARQUET_MATRIX = `
  select * from (values
    (1, 12345678901234.5678::DECIMAL(18,4), 9223372036854775807::BIGINT, DATE '1969-07-20', TIMESTAMPTZ '1965-03-01 12:30:00.123456+00', [1, NULL, 3], {'city': 'Kraków', 'zip': 30001}),
    (2, -0.0001::DECIMAL(18,4), (-9223372036854775807 - 1)::BIGINT, DATE '1900-02-28', TIMESTAMPTZ '2024-02-29 23:59:59.999999+00', []::INTEGER[], {'city': NULL, 'zip': NULL}),
    (3, NULL, 9223372036854775806::BIGINT, DATE '0001-01-01', NULL, NULL, NULL)
  ) t(id, amount, big, day, ts, tags, place)`;
