import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { call } from './support/client.js';
import { extractLoadDag, nodeOf, runDagToEnd, uniqueName } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';
import { createMariaDatabase, type MariaDatabase } from './support/maria-database.js';
import type { ConnectionTestResult, Connector } from '@conduit/contracts';

// Database category end to end: a MariaDB table copied into PostgreSQL by a run, checked on the PostgreSQL side.
let dataRoot: string;
let mariaDb: MariaDatabase;
let maria: mysql.Connection;

beforeAll(async () => {
  mariaDb = await createMariaDatabase('select');
  maria = mariaDb.root;
  await maria.query(
    'create table orders (id int primary key, customer varchar(50), amount decimal(10,2), placed_at datetime(3), note text)',
  );
  const rows = Array.from({ length: 2500 }, (_, i) => [
    i + 1,
    `customer ${i % 37}`,
    (i * 1.25).toFixed(2),
    new Date(Date.UTC(2024, 0, 1) + i * 60_000),
    i % 10 === 0 ? null : `note "${i}"`,
  ]);
  await maria.query('insert into orders values ?', [rows]);
});

const target = useTargetStack({
  env: async () => {
    dataRoot = await mkdtemp(join(tmpdir(), 'conduit-e2e-data-'));
    return { CONNECTOR_DATA_ROOT: dataRoot };
  },
  prepare: async (db) => {
    await db.query(
      'create table orders_copy (id int primary key, customer text, amount numeric(10,2), placed_at timestamptz, note text)',
    );
  },
});

afterAll(async () => {
  await mariaDb?.drop();
  if (dataRoot) await rm(dataRoot, { recursive: true, force: true });
});

describe('mysql -> postgres', () => {
  it('copies a MariaDB table into PostgreSQL, and never shows the mysql password', async () => {
    const mysqlConnector = await call<Connector>(target.stack, 'POST', '/v2/connectors', {
      body: { name: uniqueName('maria'), type: 'mysql', config: mariaDb.config() },
    });
    expect(mysqlConnector.status).toBe(201);
    expect(mysqlConnector.text).not.toContain(mariaDb.password);
    const tested = await call<ConnectionTestResult>(
      target.stack,
      'POST',
      `/v2/connectors/${mysqlConnector.body.id}/test`,
    );
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ ok: true, error_class: null });
    expect(tested.text).not.toContain(mariaDb.password);

    const dag = extractLoadDag(
      { connector_id: mysqlConnector.body.id, table: 'orders' },
      { connector_id: target.connectorId, table: 'orders_copy', mode: 'append' },
    );
    const run = await runDagToEnd(target.stack, dag, 60_000);
    expect(run.status).toBe('succeeded');
    expect(nodeOf(run, 'load')).toMatchObject({ status: 'succeeded', rows_out: 2500 });
    expect(JSON.stringify(run)).not.toContain(mariaDb.password);

    const { rows } = await target.db.query<{ n: string; total: string; first: Date; nulls: string }>(
      `select count(*) as n, sum(amount)::text as total, min(placed_at) as first, count(*) filter (where note is null) as nulls from orders_copy`,
    );
    expect(rows[0]).toEqual({
      n: '2500',
      total: ((1.25 * 2499 * 2500) / 2).toFixed(2),
      first: new Date(Date.UTC(2024, 0, 1)),
      nulls: '250',
    });
    const sample = await target.db.query(
      'select id, customer, amount::text as amount, note from orders_copy where id = 12',
    );
    expect(sample.rows).toEqual([{ id: 12, customer: 'customer 11', amount: '13.75', note: 'note "11"' }]);
  });
});
