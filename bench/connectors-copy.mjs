// Copy throughput of the connector drivers through the run engine: mysql -> postgres and s3 Parquet -> postgres,
// beside postgres -> postgres as the baseline, all measured in this process in alternating rounds. Each copy is
// executeRun from @conduit/executor on a source -> sink DAG (source rows are staged in DuckDB, then COPYed out),
// so a ratio says how a source driver compares with the postgres one on the same path.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDriver } from '@conduit/connectors';
import { executeRun, runMemory } from '@conduit/executor';
import mysql from 'mysql2/promise';
import pg from 'pg';
import S3rver from 's3rver';
import { printResult, round } from './lib/report.mjs';

// The drivers run in this process against servers on this machine: allow private networks, as an operator would.
process.env.CONNECTOR_ALLOW_PRIVATE_NETWORKS = 'true';
const ROWS = Number(process.env.BENCH_COPY_ROWS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_COPY_ROUNDS ?? 3);
const id = randomUUID().replace(/-/g, '').slice(0, 16);
const schema = `bench_copy_${id}`;
const mysqlDb = `bench_copy_${id}`;
const bucket = 'bench-copy';

const pgConfig = { host: '127.0.0.1', port: 5432, database: 'postgres', user: 'postgres', schema };
const mysqlConfig = { host: '127.0.0.1', port: 3306, database: mysqlDb, user: 'root' };

const admin = new pg.Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' });
await admin.connect().catch((err) => {
  throw new Error(`this bench needs PostgreSQL at 127.0.0.1:5432: ${err.message}`);
});
const maria = await mysql
  .createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' })
  .catch((err) => {
    throw new Error(`this bench needs MariaDB/MySQL at 127.0.0.1:3306: ${err.message}`);
  });
const dataDir = await mkdtemp(join(tmpdir(), 'conduit-bench-copy-'));
const s3Server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory: join(dataDir, 's3'),
  silent: true,
  configureBuckets: [{ name: bucket, configs: [] }],
});
const { port: s3Port } = await s3Server.run();
const s3Config = {
  endpoint: `http://127.0.0.1:${s3Port}`,
  region: 'us-east-1',
  bucket,
  access_key_id: 'S3RVER',
  secret_access_key: 'S3RVER',
  force_path_style: true,
};

/** The rows of the postgres and mysql tables (the Parquet object is copied from the first). */
function* rowBatches(size = 10_000) {
  for (let start = 0; start < ROWS; start += size) {
    yield Array.from({ length: Math.min(size, ROWS - start) }, (_, i) => {
      const n = start + i;
      return {
        id: n,
        customer: `customer ${n % 997}`,
        amount: (n % 10_000) / 4,
        placed_at: new Date(Date.UTC(2024, 0, 1) + n * 1000),
        note: `order note ${n}`,
      };
    });
  }
}
const asAsync = async function* (iterable) {
  yield* iterable;
};

try {
  await admin.query(`create schema ${schema}`);
  const columns = 'id int primary key, customer text, amount double precision, placed_at timestamptz, note text';
  await admin.query(`create table ${schema}.orders (${columns})`);
  await admin.query(`create table ${schema}.orders_copy (${columns})`);
  await maria.query(`create database ${mysqlDb}`);
  await maria.query(
    `create table ${mysqlDb}.orders (id int primary key, customer varchar(50), amount double, placed_at datetime(3), note varchar(100))`,
  );

  const load = async (type, config, req) =>
    (await getDriver(type).write(config, req, asAsync(rowBatches()))).rows_written;
  await load('postgres', pgConfig, { table: 'orders', mode: 'append' });
  await load('mysql', mysqlConfig, { table: 'orders', mode: 'append' });

  const connectors = new Map([
    ['con_pg', { id: 'con_pg', type: 'postgres', config: pgConfig }],
    ['con_mysql', { id: 'con_mysql', type: 'mysql', config: mysqlConfig }],
    ['con_s3', { id: 'con_s3', type: 's3', config: s3Config }],
  ]);
  /** Runs a source -> sink DAG in this process; throws unless it succeeded. */
  async function runCopy(sourceConfig, sinkConfig) {
    const dag = {
      nodes: [
        { id: 'extract', type: 'source', config: sourceConfig },
        { id: 'load', type: 'sink', config: sinkConfig },
      ],
      edges: [{ from: 'extract', to: 'load' }],
    };
    const outcome = await executeRun({
      runId: `run_bench_${randomUUID()}`,
      dag,
      connectors,
      workspace: { dataDir, memory: runMemory(512 * 1024 * 1024) },
      signal: new AbortController().signal,
      log: { write() {} },
    });
    if (outcome.status !== 'succeeded') throw new Error(`copy failed: ${JSON.stringify(outcome.error)}`);
  }
  // The Parquet object from the postgres table through the engine, so its columns have the table's types (JS numbers
  // written directly would all be doubles, which the postgres sink rightly refuses for the integer id).
  await runCopy(
    { connector_id: 'con_pg', table: 'orders' },
    { connector_id: 'con_s3', table: 'orders/orders.parquet', mode: 'overwrite' },
  );
  const sources = {
    postgres_to_postgres: { connector_id: 'con_pg', table: 'orders' },
    mysql_to_postgres: { connector_id: 'con_mysql', table: 'orders' },
    s3_parquet_to_postgres: { connector_id: 'con_s3', path: 'orders/orders.parquet' },
  };

  /** One run copying ROWS rows into orders_copy (overwritten); answers rows/s. */
  async function copyOnce(sourceConfig) {
    const started = performance.now();
    await runCopy(sourceConfig, { connector_id: 'con_pg', table: 'orders_copy', mode: 'overwrite' });
    const seconds = (performance.now() - started) / 1000;
    const { rows } = await admin.query(`select count(*)::int as n from ${schema}.orders_copy`);
    if (rows[0].n !== ROWS) throw new Error(`copied ${rows[0].n} rows, expected ${ROWS}`);
    return ROWS / seconds;
  }

  const samples = Object.fromEntries(Object.keys(sources).map((name) => [name, []]));
  for (const source of Object.values(sources)) await copyOnce(source); // warm-up: JIT, DuckDB, connections
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    for (const [name, source] of Object.entries(sources)) samples[name].push(await copyOnce(source));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const figures = Object.fromEntries(
    Object.entries(samples).map(([name, values]) => [name, { rows_per_sec: round(median(values), 0) }]),
  );
  const baseline = figures.postgres_to_postgres.rows_per_sec;
  const ratios = {
    mysql_vs_postgres: round(figures.mysql_to_postgres.rows_per_sec / baseline, 3),
    s3_parquet_vs_postgres: round(figures.s3_parquet_to_postgres.rows_per_sec / baseline, 3),
  };
  for (const [name, f] of Object.entries(figures))
    console.log(`${name.padEnd(24)} ${String(f.rows_per_sec).padStart(9)} rows/s (median of ${ROUNDS})`);
  console.log(
    `ratios vs postgres -> postgres: mysql ${ratios.mysql_vs_postgres}, s3 parquet ${ratios.s3_parquet_vs_postgres}`,
  );
  printResult('connectors-copy', {
    rows: ROWS,
    rounds: ROUNDS,
    ...figures,
    ratios,
    headline: {
      subject: `mysql ${figures.mysql_to_postgres.rows_per_sec} rows/s, s3 parquet ${figures.s3_parquet_to_postgres.rows_per_sec} rows/s`,
      baseline: `postgres -> postgres ${baseline} rows/s`,
      ratio: `mysql ${ratios.mysql_vs_postgres}x, s3 parquet ${ratios.s3_parquet_vs_postgres}x the baseline`,
    },
  });
} finally {
  await admin.query(`drop schema if exists ${schema} cascade`).catch(() => undefined);
  await admin.end();
  await maria.query(`drop database if exists ${mysqlDb}`).catch(() => undefined);
  await maria.end();
  await s3Server.close().catch(() => undefined);
  await rm(dataDir, { recursive: true, force: true });
}
