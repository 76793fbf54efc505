import duckdb, { type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';
import {
  RUN_NODE_COLUMN_NAME_MAX,
  RUN_NODE_COLUMN_TYPE_MAX,
  RUN_NODE_COLUMNS_MAX,
  runReportSchema,
} from '@conduit/contracts';
import { runNode } from '../../test/support/run-nodes.js';
import { describeColumns, namedColumns } from './node-columns.js';

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await duckdb.DuckDBInstance.create(':memory:');
  connection = await instance.connect();
});

afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

describe('describeColumns', () => {
  it("answers a table's columns in order with DuckDB's types, and a view's", async () => {
    await connection.run(
      `create table "orders" as select 1::integer as id, 12.5::decimal(12,2) as amount, 'x' as note, date '2024-02-29' as day,
         timestamptz '2024-01-01 00:00:00+00' as at, [1, 2] as tags, {'k': 1} as meta`,
    );
    await connection.run(`create view "orders view" as select id, amount * 2 as doubled from "orders"`);
    const table = await describeColumns(connection, 'orders');
    expect(table).toEqual({
      total: 7,
      columns: [
        { name: 'id', type: 'INTEGER' },
        { name: 'amount', type: 'DECIMAL(12,2)' },
        { name: 'note', type: 'VARCHAR' },
        { name: 'day', type: 'DATE' },
        { name: 'at', type: 'TIMESTAMP WITH TIME ZONE' },
        { name: 'tags', type: 'INTEGER[]' },
        { name: 'meta', type: 'STRUCT(k INTEGER)' },
      ],
    });
    const view = await describeColumns(connection, 'orders view');
    expect(view.columns.map((c) => c.name)).toEqual(['id', 'doubled']);
    expect(view.columns[1]!.type).toMatch(/^DECIMAL\(\d+,2\)$/);
  });

  it('keeps the source type a driver declared, matched by name', async () => {
    const declared = [
      { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'numeric(12,2)' },
      { name: 'id', type: 'INTEGER' },
    ];
    const { columns } = await describeColumns(connection, 'orders', declared);
    expect(columns[0]).toEqual({ name: 'id', type: 'INTEGER' });
    expect(columns[1]).toEqual({ name: 'amount', type: 'DECIMAL(12,2)', source_type: 'numeric(12,2)' });
  });

  it('names every type exactly as DESCRIBE does, aliases and nested types included', async () => {
    // The types a source's catalog maps to (packages/connectors pg-types, mysql, duckdb) and what a tenant's SQL can
    // make: `printed` are read from a prepared `select *`, a table with a STRUCT or UNION anywhere from DESCRIBE.
    await connection.run(`create type mood as enum ('sad', 'it''s', 'a"b', ''); create type score as integer`);
    const printed = [
      'boolean',
      'tinyint',
      'smallint',
      'integer',
      'bigint',
      'hugeint',
      'utinyint',
      'usmallint',
      'uinteger',
      'ubigint',
      'uhugeint',
      'float',
      'double',
      'decimal(4,1)',
      'decimal(18,3)',
      'decimal(38,10)',
      'varchar',
      'varchar collate nocase',
      'blob',
      'bit',
      'uuid',
      'json',
      'date',
      'time',
      'timetz',
      'timestamp',
      'timestamptz',
      'time_ns',
      'timestamp_s',
      'timestamp_ms',
      'timestamp_ns',
      'interval',
      'varint',
      'mood',
      'score',
      'integer[]',
      'varchar[][]',
      'json[]',
      'decimal(12,2)[]',
      'mood[]',
      'score[]',
      'integer[3]',
      'json[2]',
      'map(varchar, json)',
      'map(integer, double[])',
    ];
    const structured = [
      'struct(a integer, "B c" varchar)',
      'struct(x json)[]',
      'union(num integer, "we ird" varchar)',
      'map(varchar, struct("Select" integer))',
      'integer',
    ];
    for (const [table, types] of [
      ['printed', printed],
      ['structured', structured],
    ] as const) {
      await connection.run(`create table ${table} (${types.map((t, i) => `"c ${i}" ${t}`).join(', ')})`);
      const described = (await connection.runAndReadAll(`describe ${table}`))
        .getRows()
        .map(([name, type]) => ({ name: String(name), type: String(type) }));
      expect(described).toHaveLength(types.length);
      expect(await describeColumns(connection, table)).toEqual({ columns: described, total: types.length });
    }
  });

  it("answers nothing for a table that does not exist, never another schema's or a prefix match", async () => {
    await connection.run(`create schema other; create table other.ghost as select 1 as x`);
    expect(await describeColumns(connection, 'ghost')).toEqual({ columns: [], total: 0 });
    expect(await describeColumns(connection, 'order')).toEqual({ columns: [], total: 0 });
  });

  it('reports at most the bound and says how many there are', async () => {
    const select = Array.from({ length: RUN_NODE_COLUMNS_MAX + 5 }, (_, i) => `${i} as c${i}`).join(', ');
    await connection.run(`create table wide as select ${select}`);
    const { columns, total } = await describeColumns(connection, 'wide');
    expect(total).toBe(RUN_NODE_COLUMNS_MAX + 5);
    expect(columns).toHaveLength(RUN_NODE_COLUMNS_MAX);
    expect(columns.at(-1)).toEqual({ name: `c${RUN_NODE_COLUMNS_MAX - 1}`, type: 'INTEGER' });
  });

  it('cuts long names and types, marks the cut, and leaves no half of a surrogate pair or NUL for jsonb', async () => {
    const longName = `${'n'.repeat(RUN_NODE_COLUMN_NAME_MAX - 2)}😀tail`;
    const fields = Array.from({ length: 40 }, (_, i) => `'field_${i}': ${i}`).join(', ');
    await connection.run(`create table long_ones as select 1 as "${longName}", {${fields}} as s`);
    const { columns } = await describeColumns(connection, 'long_ones');
    const [name, struct] = columns;
    expect(name!.name).toHaveLength(RUN_NODE_COLUMN_NAME_MAX);
    expect(name!.name).toBe(`${'n'.repeat(RUN_NODE_COLUMN_NAME_MAX - 2)}\uFFFD…`);
    expect(struct!.type).toHaveLength(RUN_NODE_COLUMN_TYPE_MAX);
    expect(struct!.type!.startsWith('STRUCT(field_0 INTEGER, ')).toBe(true);
    expect(struct!.type!.endsWith('…')).toBe(true);
    expect(namedColumns(['a\u0000b']).columns).toEqual([{ name: 'a\uFFFDb', type: null }]);
    // What it answers always fits the report's schema.
    const node = runNode('n', 'transform', 'succeeded', { rows_out: 1 });
    expect(
      runReportSchema.safeParse({
        event_id: 'e',
        run_id: 'r',
        tenant_id: 't',
        attempt: 1,
        epoch: 1,
        at: 'now',
        type: 'run.node',
        node: { ...node, columns },
      }).success,
    ).toBe(true);
  });
});

describe('namedColumns', () => {
  it('answers names without types, bounded', () => {
    const names = Array.from({ length: RUN_NODE_COLUMNS_MAX + 1 }, (_, i) => `c${i}`);
    const { columns, total } = namedColumns(names);
    expect(total).toBe(RUN_NODE_COLUMNS_MAX + 1);
    expect(columns).toHaveLength(RUN_NODE_COLUMNS_MAX);
    expect(columns[0]).toEqual({ name: 'c0', type: null });
  });
});
