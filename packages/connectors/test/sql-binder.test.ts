// The SQL binder: a tenant's SELECT prepared against empty tables declared by their columns, in the locked DuckDB.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import duckdb from '@duckdb/node-api';
import { bindInputOf, bindUserSql, isDeclarableType, withSqlBinder, type BindInput } from '../src/index.js';

/** Columns as the binder declares and answers them, written `{ name: type }` in their order. */
const columns = (types: Record<string, string>) => Object.entries(types).map(([name, type]) => ({ name, type }));

const orders: BindInput = {
  name: 'orders',
  columns: columns({ id: 'BIGINT', amount: 'DECIMAL(12,2)', note: 'VARCHAR', placed_at: 'TIMESTAMP WITH TIME ZONE' }),
};
const customers: BindInput = {
  name: 'Customers',
  columns: columns({ id: 'BIGINT', name: 'VARCHAR', tags: 'VARCHAR[]' }),
};

describe('bindUserSql', () => {
  it.each([
    [
      'answers the output columns with the types of the declared inputs',
      'select id, note, placed_at from orders where amount > 0',
      [orders],
      { id: 'BIGINT', note: 'VARCHAR', placed_at: 'TIMESTAMP WITH TIME ZONE' },
    ],
    [
      'keeps decimal arithmetic exact: DECIMAL(12,2) * 2 is a DECIMAL',
      'select amount * 2 as doubled, sum(amount) over () as total from orders',
      [orders],
      { doubled: 'DECIMAL(18,2)', total: 'DECIMAL(38,2)' },
    ],
    [
      'binds a join of two inputs (names match case-insensitively, as in a run)',
      'select o.id, c.name, c.tags, o.amount from orders o join customers c on c.id = o.id',
      [orders, customers],
      { id: 'BIGINT', name: 'VARCHAR', tags: 'VARCHAR[]', amount: 'DECIMAL(12,2)' },
    ],
  ])('%s', async (_name, sql, inputs, expected) => {
    expect(await bindUserSql(sql, inputs)).toEqual({ kind: 'bound', columns: columns(expected) });
  });

  it('names a column the inputs do not have', async () => {
    const outcome = await bindUserSql('select id, discount from orders', [orders]);
    expect(outcome).toEqual({
      kind: 'unknown_column',
      message: expect.stringContaining('"discount"'),
      error: expect.stringMatching(/^Binder Error: .*"discount"/),
    });
    expect(outcome.kind === 'unknown_column' && outcome.message).not.toMatch(/LINE \d|\n/);
  });

  it('names a qualified column the table does not have', async () => {
    expect(await bindUserSql('select o.discount from orders o', [orders])).toEqual({
      kind: 'unknown_column',
      message: expect.stringContaining('"discount"'),
      error: expect.stringContaining('"discount"'),
    });
  });

  it("names a table that is none of the inputs, without suggesting DuckDB's own views", async () => {
    const outcome = await bindUserSql('select * from order_lines', [orders]);
    expect(outcome).toEqual({
      kind: 'unknown_table',
      table: 'order_lines',
      message: expect.stringContaining('order_lines'),
      error: expect.stringMatching(/^Catalog Error: .*order_lines/),
    });
    expect(outcome.kind === 'unknown_table' && outcome.message).not.toMatch(/Did you mean|pg_|duckdb_/);
  });

  it('reports another binder error (a type mismatch) as unbindable', async () => {
    expect(await bindUserSql('select id from orders where note > 1', [orders])).toEqual({
      kind: 'unbindable',
      message: expect.stringContaining('Cannot compare values of type VARCHAR'),
      error: expect.stringContaining('Cannot compare values of type VARCHAR'),
    });
  });

  it('declares every common DuckDB type as it is written, and answers it back the same', async () => {
    const types = [
      'TINYINT',
      'HUGEINT',
      'UBIGINT',
      'DECIMAL(38,10)',
      'DOUBLE',
      'BOOLEAN',
      'DATE',
      'TIMESTAMP',
      'TIMESTAMP_NS',
      'TIME WITH TIME ZONE',
      'INTERVAL',
      'UUID',
      'JSON',
      'JSON[]',
      'STRUCT(j JSON)',
      'INTEGER[]',
      'INTEGER[3]',
      'STRUCT(n INTEGER, "s q" VARCHAR)',
      'STRUCT("a b" INTEGER, "c" VARCHAR)[]',
      'MAP(VARCHAR, INTEGER)',
      'BLOB',
      'BIT',
      "ENUM('sad', 'o''k')",
    ];
    const input = { name: 'wide', columns: types.map((type, i) => ({ name: `c${i}`, type })) };
    const outcome = await bindUserSql('select * from wide', [input]);
    expect(outcome.kind).toBe('bound');
    // DuckDB writes a struct's plain field names unquoted in one place and quoted in the other: compare unquoted.
    const plain = (type: string) => type.replace(/"([a-z]\w*)"/g, '$1');
    expect(outcome.kind === 'bound' && outcome.columns.map((c) => plain(c.type))).toEqual(types.map(plain));
  });
});

describe('the binder is locked like every DuckDB running tenant SQL', () => {
  let outside: string;
  beforeAll(async () => {
    outside = await mkdtemp(join(tmpdir(), 'conduit-binder-'));
    await writeFile(join(outside, 'secret.csv'), 'key\nconduit-secret-marker\n');
  });
  afterAll(() => rm(outside, { recursive: true, force: true }));

  it.each([
    ['a file by its path', () => `select * from '${join(outside, 'secret.csv')}'`],
    ['a file reader', () => `select * from read_csv('${join(outside, 'secret.csv')}')`],
    ['a setting', () => "select current_setting('memory_limit') as m from orders"],
    ["DuckDB's own settings view", () => 'select * from duckdb_settings()'],
    ['a second statement', () => 'select 1 as a; select 2 as b'],
    ['a statement that is not a SELECT', () => "set memory_limit = '10GB'"],
  ])('refuses %s as not allowed, and reads nothing', async (_name, sql) => {
    const outcome = await bindUserSql(sql(), [orders]);
    expect(outcome).toEqual({ kind: 'not_allowed', message: expect.any(String) });
    expect(JSON.stringify(outcome)).not.toContain('conduit-secret-marker');
  });

  it('declares only types: clauses, extra columns or statements hidden in a type are refused', async () => {
    for (const type of [
      "VARCHAR DEFAULT current_setting('x')",
      'INTEGER, extra INTEGER',
      'INTEGER); drop table x; --',
      'INTEGER GENERATED ALWAYS AS (1)',
      'INTEGER NOT NULL',
    ]) {
      expect([type, isDeclarableType(type)]).toEqual([type, false]);
      expect([type, await withSqlBinder((b) => b.declare('t', [{ name: 'a', type }]))]).toEqual([type, false]);
    }
    expect(isDeclarableType('STRUCT("default" INTEGER, "x, y" VARCHAR)')).toBe(true);
  });

  it("keeps each binder's tables to itself: another binder at the same time does not see them", async () => {
    const seen = await withSqlBinder(async (first) => {
      expect(await first.declare('private_table', [{ name: 'a', type: 'INTEGER' }])).toBe(true);
      const other = await bindUserSql('select a from private_table', []);
      const own = await first.bind('select a from private_table');
      return { other: other.kind, own: own.kind };
    });
    expect(seen).toEqual({ other: 'unknown_table', own: 'bound' });
    expect((await bindUserSql('select a from private_table', [])).kind).toBe('unknown_table');
  });

  it('answers undeclared for SQL reading an input it cannot declare; SQL that does not read it binds', async () => {
    const odd: BindInput = { name: 'odd', columns: columns({ a: 'NO_SUCH_TYPE' }) };
    expect(await bindUserSql('select o.id from orders o join ODD using (id)', [orders, odd])).toEqual({
      kind: 'undeclared',
      table: 'ODD',
    });
    expect(await bindUserSql('select id from orders', [orders, odd])).toEqual({
      kind: 'bound',
      columns: columns({ id: 'BIGINT' }),
    });
  });
});

describe('bindInputOf', () => {
  it('declares a table or a view as it is, wide types too: the same SQL binds to the same columns', async () => {
    const instance = await duckdb.DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const wide = Array.from({ length: 300 }, (_, i) => `'field number ${i}': ${i}`).join(', ');
      await connection.run(`create type mood as enum ('calm', 'it''s odd');
        create table "Orders" as select 1::bigint as id, 2.5::decimal(38,10) as amount, 'calm'::mood as mood,
          {'x y': [1], 'j': '{}'::json} as s, union_value(j := '{}'::json)::union(j json, n int) as u,
          now()::timestamp_ns as at, {${wide}} as wide;
        create view recent as select id, s from "Orders"`);
      const inputs = [await bindInputOf(connection, 'Orders'), await bindInputOf(connection, 'recent')];
      expect(inputs.find((i) => i.name === 'Orders')?.columns.find((c) => c.name === 'u')?.type).toBe(
        'UNION("j" JSON, "n" INTEGER)',
      );
      const sql = 'select o.*, r.s as rs from "Orders" o join recent r using (id)';
      const here = await connection.prepare(sql);
      const types = Array.from({ length: here.columnCount }, (_, i) => here.columnType(i).toString());
      here.destroySync();
      const outcome = await bindUserSql(sql, inputs);
      expect(outcome.kind === 'bound' && outcome.columns.map((c) => c.type.replace(/\bJSON\b/g, 'VARCHAR'))).toEqual(
        types,
      );
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
