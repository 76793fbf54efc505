// A run's memory stays within its limit however large its tables (issue 16, "Bounded memory"): a run copies a
// PostgreSQL table several times larger than RUN_MEMORY_LIMIT through a `select *` transform (two DuckDB tables of
// it), in a process of its own, and that process's peak RSS stays under its idle RSS plus the limit and a margin.
// Were rows held in JS, or DuckDB not held to its pool, the peak would pass idle + the tables' size instead.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import { dagNodes, linearDag } from '@conduit/testing';
import { DEFAULT_RUN_MEMORY_LIMIT, parseSize } from '../src/data/run-memory.js';
import { CONNECTOR_ID, DATA_DIR } from './support/engine-harness.js';
import { connectorConfig, uniqueSchema, dropSchema, openSchema } from './support/postgres.js';

const { source, transform, sink } = dagNodes(CONNECTOR_ID);
const MiB = 1024 * 1024;
const LIMIT_BYTES = parseSize(DEFAULT_RUN_MEMORY_LIMIT)!;
/**
 * What a process may hold beyond the limit: V8's and the allocators' slack (young garbage between collections, freed
 * memory not yet handed back). Well under what one table of this test takes in DuckDB.
 */
const MARGIN_BYTES = 48 * MiB;
// About 250 bytes a row: 650k rows are about 160 MiB as CSV and about 300 MiB as each of the run's two DuckDB tables.
const ROWS = 650_000;
const schema = uniqueSchema();
let db: pg.Client;

beforeAll(async () => {
  db = await openSchema(schema);
  const columns = '(id bigint primary key, amount numeric(12,2), at timestamptz, note text)';
  await db.query(`create table src ${columns}`);
  await db.query(`create table dst ${columns}`);
  await db.query(
    `insert into src select g, (g % 100000) / 100.0, timestamptz '2026-01-01' + g * interval '1 second', repeat(md5(g::text), 6)
     from generate_series(1, ${ROWS}) g`,
  );
}, 60_000);

afterAll(async () => {
  await dropSchema(db, schema);
});

const checksum = async (table: string) =>
  (
    await db.query<{ n: string; sum: string }>(
      `select count(*) as n, sum(('x' || substr(md5(t::text), 1, 15))::bit(60)::bigint)::text as sum from ${table} t`,
    )
  ).rows[0];

it('copies a table several times the run memory limit with the peak RSS under idle + limit + margin', async () => {
  const options = {
    dag: linearDag(source('extract', { table: 'src' }), transform('all', 'select * from extract'), sink('load', 'dst')),
    connectors: [{ id: CONNECTOR_ID, type: 'postgres', config: connectorConfig(schema) }],
    dataDir: DATA_DIR,
    limitBytes: LIMIT_BYTES,
  };
  const runner = join(import.meta.dirname, 'support', 'memory-run.mjs');
  const { stdout } = await promisify(execFile)(process.execPath, [runner, JSON.stringify(options)], {
    maxBuffer: 4 * MiB,
  });
  const { idle_kib, peak_kib, outcome } = JSON.parse(stdout) as {
    idle_kib: number;
    peak_kib: number;
    outcome: { status: string; error: unknown };
  };

  expect(outcome).toMatchObject({ status: 'succeeded', error: null });
  expect(await checksum('dst')).toEqual(await checksum('src'));
  const grewBy = (peak_kib - idle_kib) * 1024;
  expect(grewBy).toBeLessThan(LIMIT_BYTES + MARGIN_BYTES);
}, 90_000);
