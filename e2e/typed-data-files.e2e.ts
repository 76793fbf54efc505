import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3Server, startStack, writeParquet, type S3Server, type Stack } from '@conduit/testing';
import pg from 'pg';
import { call } from './support/client.js';
import { create, nodeOf, runDagToEnd, runOutcome, uniqueName } from './support/helpers.js';
import { EXPECTED_DOUBLED, asMoney, moneyDag } from './support/money-pipeline.js';
import { createTargetDatabase, type TargetDatabase } from './support/target-database.js';

// Issue 15 for files and objects: a CSV file (its amount typed by a `columns` override), a Parquet file (its own
// schema) and CSV objects on S3 go through DuckDB's own readers into the run, through transforms that compute on the
// exact types, into PostgreSQL; Get Run Status shows each source's columns with their types.
const TENANT = `tnt_${'1'.repeat(26)}`;
let stack: Stack;
let targetDb: TargetDatabase;
let db: pg.Client;
let s3: S3Server;
let dataRoot: string;
let files: string;
let objects: string;
let postgres: string;

// Cents from -20.00 to 79.99 and 0.10 + 0.20: a DOUBLE sum of them misses the exact total.
const PAYMENTS = [
  ...Array.from({ length: 2000 }, (_, i) => ({ id: i + 1, cents: BigInt((((i + 1) * 37) % 10000) - 2000) })),
  { id: 2001, cents: 10n },
  { id: 2002, cents: 20n },
];

beforeAll(async () => {
  dataRoot = await mkdtemp(join(tmpdir(), 'conduit-e2e-typed-files-'));
  const home = join(dataRoot, TENANT, 'typed');
  await mkdir(home, { recursive: true });
  const lines = PAYMENTS.map((p) => `${p.id},${asMoney(p.cents)},"note ${p.id}, with a comma"`);
  await writeFile(join(home, 'payments.csv'), `id,amount,note\n${lines.join('\n')}\n`);
  await writeParquet(
    join(home, 'orders.parquet'),
    `
    select * from (values
      (1, 12345678901234.5678::DECIMAL(18,4), 9223372036854775807::BIGINT, DATE '1969-07-20', TIMESTAMPTZ '1965-03-01 12:30:00.123456+00', [1, NULL, 3], {'city': 'Kraków', 'zip': 30001}),
      (2, -0.0001::DECIMAL(18,4), (-9223372036854775807 - 1)::BIGINT, DATE '1900-02-28', TIMESTAMPTZ '2024-02-29 23:59:59.999999+00', []::INTEGER[], {'city': NULL, 'zip': NULL}),
      (3, 0.1000::DECIMAL(18,4), 0::BIGINT, DATE '2024-02-29', NULL, NULL, NULL)
    ) t(id, amount, big, day, ts, tags, place)`,
  );

  s3 = await startS3Server();
  await s3.put('fx/2024-01-01.csv', 'id,rate\n1,1.0001\n2,3.0000\n');
  await s3.put('fx/2024-01-02.csv', 'id,rate,source\n3,0.3333,ecb\n');

  targetDb = await createTargetDatabase();
  db = new pg.Client({ connectionString: targetDb.url });
  await db.connect();
  // The payments as PostgreSQL holds them, for the shared check of the doubled rows.
  await db.query('create table payments (id int primary key, amount numeric(12,2))');
  await db.query(`insert into payments select * from unnest($1::int[], $2::numeric[])`, [
    PAYMENTS.map((p) => p.id),
    PAYMENTS.map((p) => asMoney(p.cents)),
  ]);

  stack = await startStack({
    CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
    CONNECTOR_DATA_ROOT: dataRoot,
    BOOTSTRAP_TENANT_ID: TENANT,
  });
  files = (
    await create(stack, '/v2/connectors', { name: uniqueName('files'), type: 'file', config: { path: 'typed' } })
  ).id;
  objects = (await create(stack, '/v2/connectors', { name: uniqueName('s3'), type: 's3', config: s3.config() })).id;
  postgres = (
    await create(stack, '/v2/connectors', { name: uniqueName('pg'), type: 'postgres', config: targetDb.config() })
  ).id;
}, 120_000);

afterAll(async () => {
  await db?.end();
  await stack?.stop();
  await targetDb?.drop();
  await s3?.close();
  if (dataRoot) await rm(dataRoot, { recursive: true, force: true });
});

async function except(a: string, b: string): Promise<unknown[]> {
  return (await db.query<Record<string, unknown>>(`${a} except all ${b}`)).rows;
}

const transform = (id: string, sql: string) => ({ id, type: 'transform', config: { sql } });
const sink = (id: string, table: string) => ({
  id,
  type: 'sink',
  config: { connector_id: postgres, table, mode: 'append' },
});

describe('typed files and objects end to end (-> transform -> postgres)', () => {
  it('a CSV file whose amount an override makes DECIMAL(12,2): the filter, the product and the sums are exact', async () => {
    const source = (id: string) => ({
      id,
      type: 'source',
      config: { connector_id: files, path: 'payments.csv', columns: { amount: 'DECIMAL(12,2)' } },
    });
    const run = await runDagToEnd(stack, moneyDag({ source, transform, sink }));
    expect(runOutcome(run)).toEqual({ status: 'succeeded', errors: [] });
    expect(nodeOf(run, 'src')).toMatchObject({ rows_out: 2002 });
    expect(nodeOf(run, 'src').columns).toEqual([
      { name: 'id', type: 'BIGINT', source_type: 'csv (sniffed)' },
      { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'csv (columns)' },
      { name: 'note', type: 'VARCHAR', source_type: 'csv (sniffed)' },
    ]);

    const written = 'select id, doubled::numeric from payments_doubled';
    expect(await except(written, EXPECTED_DOUBLED)).toEqual([]);
    expect(await except(EXPECTED_DOUBLED, written)).toEqual([]);
    const cents = PAYMENTS.reduce((sum, p) => sum + p.cents, 0n);
    const { rows: totals } = await db.query(
      'select total::text as total, tripled::text as tripled, n::int as n from payments_totals',
    );
    expect(totals).toEqual([{ total: asMoney(cents), tripled: asMoney(cents * 3n), n: 2002 }]);
  });

  it('a Parquet file keeps its schema, CSV objects on S3 take an override, and a join computes on both exactly', async () => {
    const run = await runDagToEnd(stack, {
      nodes: [
        { id: 'orders', type: 'source', config: { connector_id: files, path: 'orders.parquet' } },
        {
          id: 'fx',
          type: 'source',
          config: { connector_id: objects, path: 'fx/*.csv', columns: { rate: 'DECIMAL(8,4)' } },
        },
        // DuckDB multiplies two DECIMALs of up to 18 digits in 64 bits: the widening cast is the transform's to make.
        transform(
          'converted',
          `select o.id, o.amount::DECIMAL(38,4) * f.rate as converted, o.big, o.day + 1 as next_day, o.ts, o.tags,
                                       o.place.city as city, f.source from orders o join fx f using (id)`,
        ),
        sink('save', 'orders_converted'),
      ],
      edges: [
        { from: 'orders', to: 'converted' },
        { from: 'fx', to: 'converted' },
        { from: 'converted', to: 'save' },
      ],
    });
    expect(runOutcome(run)).toEqual({ status: 'succeeded', errors: [] });
    expect(nodeOf(run, 'orders').columns).toEqual([
      { name: 'id', type: 'INTEGER', source_type: 'parquet INTEGER' },
      { name: 'amount', type: 'DECIMAL(18,4)', source_type: 'parquet DECIMAL(18,4)' },
      { name: 'big', type: 'BIGINT', source_type: 'parquet BIGINT' },
      { name: 'day', type: 'DATE', source_type: 'parquet DATE' },
      { name: 'ts', type: 'TIMESTAMP WITH TIME ZONE', source_type: 'parquet TIMESTAMP WITH TIME ZONE' },
      { name: 'tags', type: 'INTEGER[]', source_type: 'parquet INTEGER[]' },
      {
        name: 'place',
        type: 'STRUCT(city VARCHAR, zip INTEGER)',
        source_type: 'parquet STRUCT(city VARCHAR, zip INTEGER)',
      },
    ]);
    expect(nodeOf(run, 'fx').columns).toEqual([
      { name: 'id', type: 'BIGINT', source_type: 'csv (sniffed)' },
      { name: 'rate', type: 'DECIMAL(8,4)', source_type: 'csv (columns)' },
      { name: 'source', type: 'VARCHAR', source_type: 'csv (sniffed)' },
    ]);
    expect(nodeOf(run, 'converted').columns).toEqual(
      expect.arrayContaining([{ name: 'converted', type: 'DECIMAL(38,8)' }]),
    );

    await db.query(`set timezone = 'UTC'`);
    const { rows } = await db.query(
      `select id, converted::text, big::text, next_day::text, ts::text, tags::text, city, source from orders_converted order by id`,
    );
    expect(rows).toEqual([
      {
        id: 1,
        converted: '12346913469124.69125678',
        big: '9223372036854775807',
        next_day: '1969-07-21',
        ts: '1965-03-01 12:30:00.123456+00',
        tags: '{1,NULL,3}',
        city: 'Kraków',
        source: null,
      },
      {
        id: 2,
        converted: '-0.00030000',
        big: '-9223372036854775808',
        next_day: '1900-03-01',
        ts: '2024-02-29 23:59:59.999999+00',
        tags: '{}',
        city: null,
        source: null,
      },
      {
        id: 3,
        converted: '0.03333000',
        big: '0',
        next_day: '2024-03-01',
        ts: null,
        tags: null,
        city: null,
        source: 'ecb',
      },
    ]);
  });

  it('refuses a columns type that could be SQL at save, naming the node and the column', async () => {
    const res = await call<{
      status: string;
      validation: { errors: Array<{ code: string; node_id: string; path: string; message: string }> };
    }>(stack, 'POST', '/v2/pipelines', {
      body: {
        name: uniqueName('pln'),
        dag: {
          nodes: [
            {
              id: 'pay',
              type: 'source',
              config: { connector_id: files, path: 'payments.csv', columns: { x: 'INTEGER); select 1; --' } },
            },
            sink('save', 'never_written'),
          ],
          edges: [{ from: 'pay', to: 'save' }],
        },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('invalid');
    expect(res.body.validation.errors).toEqual([
      expect.objectContaining({
        code: 'invalid_node_config',
        node_id: 'pay',
        path: 'nodes[0].config.columns["x"]',
        message: expect.stringMatching(/^node "pay": config\.columns\["x"\] must be a DuckDB type/),
      }),
    ]);
  });
});
