import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import duckdb from '@duckdb/node-api';
import { create, nodeColumnTypes, nodeOf, runDagToEnd, runOutcome, uniqueName } from './support/helpers.js';
import { matrixDag } from './support/money-pipeline.js';
import { CREATED_TYPES, columnTypes, createMatrix, expectCopiesOfMatrix } from './support/pg-type-matrix.js';
import { useTargetStack } from './support/target-stack.js';

// Issue 15's type matrix through a DuckDB file, end to end: the PostgreSQL every-type table goes through `select *`
// into a table of a .duckdb file (the duckdb sink's typed write), and back from it (the duckdb source's typed read)
// into an existing table of the same types and into a table the sink creates; `except` both ways is empty. The DuckDB
// file keeps every DuckDB type as it is (docs/type-mapping.md, "DuckDB file"), so no column needs rebuilding; the
// only type that depends on the data is the unbounded numeric's (DECIMAL(38, largest scale) when its values fit).
const TENANT = `tnt_${'2'.repeat(26)}`;
const FILE = 'typed/matrix.duckdb';
let dataRoot = '';
let warehouse: string;

// The matrix's columns as the PostgreSQL source declares them (docs/type-mapping.md, PostgreSQL source), which the
// DuckDB file must keep: enum -> VARCHAR, json/jsonb -> JSON, the unbounded numeric's scale is its values' largest (9).
const DUCKDB_TYPES = {
  id: 'INTEGER',
  small: 'SMALLINT',
  regular: 'INTEGER',
  big: 'BIGINT',
  amount: 'DECIMAL(12,2)',
  unbounded: 'DECIMAL(38,9)',
  f: 'FLOAT',
  d: 'DOUBLE',
  flag: 'BOOLEAN',
  note: 'VARCHAR',
  short: 'VARCHAR',
  day: 'DATE',
  ts: 'TIMESTAMP',
  tstz: 'TIMESTAMP WITH TIME ZONE',
  span: 'INTERVAL',
  uid: 'UUID',
  doc: 'JSON',
  docb: 'JSON',
  tags: 'VARCHAR[]',
  nums: 'INTEGER[]',
  raw: 'BLOB',
  feeling: 'VARCHAR',
};

const target = useTargetStack({
  prepare: async (db) => {
    await db.query(`set timezone to 'UTC'`);
    await db.query(`set intervalstyle to 'postgres'`);
    await createMatrix(db);
  },
  // The bootstrap key's tenant, named here so that the test knows its folder of the data root.
  env: async () => {
    dataRoot = await mkdtemp(join(tmpdir(), 'conduit-e2e-typed-duckdb-'));
    return { CONNECTOR_DATA_ROOT: dataRoot, BOOTSTRAP_TENANT_ID: TENANT };
  },
});

beforeAll(async () => {
  warehouse = (
    await create(target.stack, '/v2/connectors', { name: uniqueName('wh'), type: 'duckdb', config: { path: FILE } })
  ).id;
});

afterAll(async () => {
  if (dataRoot) await rm(dataRoot, { recursive: true, force: true });
});

const transform = (id: string, sql: string) => ({ id, type: 'transform', config: { sql } });
const pgSink = (id: string, table: string) => ({
  id,
  type: 'sink',
  config: { connector_id: target.connectorId, table, mode: 'append' },
});
const duckdbSource = (id: string, table: string) => ({
  id,
  type: 'source',
  config: { connector_id: warehouse, table },
});

/** `{column: type}` of `table` as the .duckdb file itself holds it, opened read-only by the test. */
async function fileColumnTypes(table: string): Promise<Record<string, string>> {
  const instance = await duckdb.DuckDBInstance.create(join(dataRoot, TENANT, FILE), { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const rows = (
      await connection.runAndReadAll(`select column_name, data_type from information_schema.columns
      where table_name = '${table}' order by ordinal_position`)
    ).getRowObjects();
    return Object.fromEntries(rows.map((r) => [String(r['column_name']), String(r['data_type'])]));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('typed data end to end (postgres -> select * -> DuckDB file -> postgres)', () => {
  it('writes the matrix into a table of the .duckdb file with its types', async () => {
    const run = await runDagToEnd(target.stack, {
      nodes: [
        { id: 'extract', type: 'source', config: { connector_id: target.connectorId, table: 'matrix' } },
        transform('everything', 'select * from extract'),
        { id: 'store', type: 'sink', config: { connector_id: warehouse, table: 'matrix', mode: 'overwrite' } },
      ],
      edges: [
        { from: 'extract', to: 'everything' },
        { from: 'everything', to: 'store' },
      ],
    });
    expect(runOutcome(run)).toEqual({ status: 'succeeded', errors: [] });
    expect(nodeOf(run, 'store')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    expect(nodeColumnTypes(run, 'extract')).toEqual(DUCKDB_TYPES);
    // The sink created the table with the input's exact types.
    expect(await fileColumnTypes('matrix')).toEqual(DUCKDB_TYPES);
  });

  it('reads it back into an existing table and a created one, equal to the original both ways', async () => {
    const run = await runDagToEnd(target.stack, matrixDag({ source: duckdbSource, transform, sink: pgSink }));
    expect(runOutcome(run)).toEqual({ status: 'succeeded', errors: [] });
    expect(nodeOf(run, 'extract')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    expect(nodeOf(run, 'into_existing')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    expect(nodeOf(run, 'into_created')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    // Get Run Status: the duckdb source's columns with the types its file declares, each its own `source_type`.
    expect(nodeColumnTypes(run, 'extract')).toEqual(DUCKDB_TYPES);
    expect(nodeOf(run, 'extract').columns?.find((c) => c.name === 'span')).toMatchObject({
      type: 'INTERVAL',
      source_type: 'INTERVAL',
    });

    await expectCopiesOfMatrix(target.db, ['matrix_existing', 'matrix_created']);
    // The created table's types are the PostgreSQL sink's for the DuckDB types the file kept; the unbounded numeric
    // comes back with the scale its values gave it.
    expect(await columnTypes(target.db, 'matrix_created')).toEqual({ ...CREATED_TYPES, unbounded: 'numeric(38,9)' });
  });

  it('keeps the types Parquet cannot hold (HUGEINT, TIME WITH TIME ZONE) exact through the file, as documented', async () => {
    // Past BIGINT (the matrix's extremes times 4) and a wall-clock time with its own offset.
    const derived =
      "select id, big::HUGEINT * 4 as huge, (ts::TIME::VARCHAR || '+05:30')::TIMETZ as clock from extract";
    const stored = await runDagToEnd(target.stack, {
      nodes: [
        { id: 'extract', type: 'source', config: { connector_id: target.connectorId, table: 'matrix' } },
        transform('derived', derived),
        { id: 'store', type: 'sink', config: { connector_id: warehouse, table: 'wide', mode: 'overwrite' } },
      ],
      edges: [
        { from: 'extract', to: 'derived' },
        { from: 'derived', to: 'store' },
      ],
    });
    expect(runOutcome(stored)).toEqual({ status: 'succeeded', errors: [] });
    expect(await fileColumnTypes('wide')).toEqual({ id: 'INTEGER', huge: 'HUGEINT', clock: 'TIME WITH TIME ZONE' });

    const back = await runDagToEnd(target.stack, {
      nodes: [duckdbSource('extract', 'wide'), pgSink('save', 'wide_back')],
      edges: [{ from: 'extract', to: 'save' }],
    });
    expect(runOutcome(back)).toEqual({ status: 'succeeded', errors: [] });
    expect(nodeColumnTypes(back, 'extract')).toEqual({ id: 'INTEGER', huge: 'HUGEINT', clock: 'TIME WITH TIME ZONE' });
    expect(await columnTypes(target.db, 'wide_back')).toEqual({
      id: 'integer',
      huge: 'numeric(39,0)',
      clock: 'time with time zone',
    });
    const expected = `select id, big::numeric * 4 as huge, (ts::time::text || '+05:30')::timetz as clock from matrix`;
    const copy = 'select id, huge, clock from wide_back';
    expect((await target.db.query(`${copy} except ${expected}`)).rows).toEqual([]);
    expect((await target.db.query(`${expected} except ${copy}`)).rows).toEqual([]);
    // timetz equality compares instants: check the offsets as text too.
    const texts = await target.db.query(`select huge::text, clock::text from wide_back where id = 1`);
    expect(texts.rows).toEqual([{ huge: '-36893488147419103232', clock: '00:00:00+05:30' }]);
  });
});
