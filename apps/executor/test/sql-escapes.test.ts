// The SQL-escape corpus through the real engine: as a transform, a rules decision, a duckdb source query and a
// duckdb sql node, every statement fails its node with a config_error, the server's file is not read (its marker
// shows nowhere) and nothing is written. Ordinary SQL in the same node types still runs.
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDriver, type ConnectorDriver } from '@conduit/connectors';
import type { ResolvedConnector } from '@conduit/contracts';
import { rulesDecision, sqlEscapes } from '@conduit/testing';

import { TEST_TENANT, nodeOf, runDag } from './support/engine-harness.js';

const MARKER = 'conduit-engine-secret-5c1d';
// Known before the tests are listed (it.each names them), made in beforeAll.
const outside = join(tmpdir(), `conduit-engine-escapes-${randomUUID()}`);
const dataRoot = join(tmpdir(), `conduit-engine-data-${randomUUID()}`);
const duck: ResolvedConnector = { id: 'con_duck', type: 'duckdb', config: { path: 'wh/engine.duckdb' } };
let previousRoot: string | undefined;

beforeAll(async () => {
  await mkdir(outside);
  await writeFile(join(outside, 'secret.env'), `SECRETS_KEY=${MARKER}\n`);
  await writeFile(join(outside, 'data.csv'), `a\n${MARKER}\n`);
  previousRoot = process.env['CONNECTOR_DATA_ROOT'];
  process.env['CONNECTOR_DATA_ROOT'] = dataRoot;
  const driver = getDriver('duckdb') as ConnectorDriver;
  await driver.write!(
    duck.config,
    { table: 'orders', mode: 'overwrite', tenantId: TEST_TENANT },
    (async function* () {
      yield [
        { id: 1, amount: 5 },
        { id: 2, amount: 50 },
      ];
    })(),
  );
  // The corpus's `copy main.t from ...` needs its table to get as far as the file.
  await driver.execute!(duck.config, 'create table t (a varchar)', { tenantId: TEST_TENANT });
});
afterAll(async () => {
  if (previousRoot === undefined) delete process.env['CONNECTOR_DATA_ROOT'];
  else process.env['CONNECTOR_DATA_ROOT'] = previousRoot;
  await rm(outside, { recursive: true, force: true });
  await rm(dataRoot, { recursive: true, force: true });
});

/** One branch per node type, each running `sql` where the tenant's SQL goes. */
function dagOf(sql: string) {
  return {
    nodes: [
      { id: 'orders', type: 'source', config: { connector_id: duck.id, table: 'orders' } },
      { id: 'tx', type: 'transform', config: { sql } },
      rulesDecision('route', { choices: ['a', 'b'], default: 'b', rules: [{ choice: 'a', sql }] }),
      { id: 'query', type: 'source', config: { connector_id: duck.id, query: sql } },
      { id: 'stmt', type: 'sql', config: { connector_id: duck.id, sql } },
    ],
    edges: [
      { from: 'orders', to: 'tx' },
      { from: 'orders', to: 'route' },
    ],
  };
}

/** Each of `ids` failed at its first attempt with a config_error whose message matches `message`. */
function expectRefused(run: Awaited<ReturnType<typeof runDag>>, ids: readonly string[], message: RegExp): void {
  for (const id of ids)
    expect([id, nodeOf(run, id)]).toEqual([
      id,
      expect.objectContaining({
        status: 'failed',
        attempts: 1,
        error: { code: 'config_error', message: expect.stringMatching(message) },
      }),
    ]);
}

const escapes = sqlEscapes({ secret: join(outside, 'secret.env'), dir: outside, out: join(outside, 'out') });

describe('the engine refuses the SQL-escape corpus in every node type', () => {
  it.each(escapes.map((e) => [e.name, e.sql]))('%s', async (_name, sql) => {
    const run = await runDag(dagOf(sql), {}, { connectors: [duck] });
    expect(run.outcome.status).toBe('failed');
    expect(nodeOf(run, 'orders').status).toBe('succeeded');
    expectRefused(
      run,
      ['tx', 'route', 'query', 'stmt'],
      /(the SQL|the query|the statement) (holds|is|must|may not|calls|reads|uses)/,
    );
    expect(JSON.stringify(run)).not.toContain(MARKER);
    expect((await readdir(outside)).sort()).toEqual(['data.csv', 'secret.env']);
  });
});

describe('ordinary SQL still runs in every node type', () => {
  it('transforms, decides, queries and executes', async () => {
    const dag = {
      nodes: [
        {
          id: 'orders',
          type: 'source',
          config: { connector_id: duck.id, query: 'select * from orders -- all of them' },
        },
        {
          id: 'big',
          type: 'transform',
          config: {
            sql: 'with o as (select * from orders) select id, amount * 2 as doubled from o where amount > 10;',
          },
        },
        rulesDecision('route', {
          choices: ['some', 'none'],
          default: 'none',
          rules: [{ choice: 'some', sql: 'select count(*) > 0 from big;' }],
        }),
        {
          id: 'stmt',
          type: 'sql',
          config: { connector_id: duck.id, sql: 'create or replace table seen as select * from orders where id = 2' },
        },
      ],
      edges: [
        { from: 'orders', to: 'big' },
        { from: 'big', to: 'route' },
      ],
    };
    const run = await runDag(dag, {}, { connectors: [duck] });
    expect(run.outcome.error).toBeNull();
    expect(nodeOf(run, 'big')).toMatchObject({ status: 'succeeded', rows_in: 2, rows_out: 1 });
    expect(nodeOf(run, 'route')).toMatchObject({ status: 'succeeded', output: { choice: 'some' } });
    expect(nodeOf(run, 'stmt').status).toBe('succeeded');
  });

  it("does not let a transform read the platform's settings", async () => {
    const dag = {
      nodes: [{ id: 'tx', type: 'transform', config: { sql: "select current_setting('memory_limit') as m" } }],
      edges: [],
    };
    const run = await runDag(dag, {}, { connectors: [duck] });
    expect(nodeOf(run, 'tx').error).toMatchObject({
      code: 'config_error',
      message: expect.stringContaining('current_setting'),
    });
  });

  // A sql node leaves no table: read as one, its id named what DuckDB finds by that name outside the run's tables
  // (here its settings view, with the server's folders), and a sink exported it, through a decision's view too.
  it("reads as an input only a node that leaves a table: a sql node named after DuckDB's settings view exports nothing", async () => {
    const dag = {
      nodes: [
        { id: 'orders', type: 'source', config: { connector_id: duck.id, table: 'orders' } },
        {
          id: 'pg_settings',
          type: 'sql',
          config: { connector_id: duck.id, sql: 'create or replace table noop (a int)' },
        },
        { id: 'loot', type: 'sink', config: { connector_id: duck.id, table: 'loot', mode: 'overwrite' } },
        rulesDecision('d', { choices: ['a', 'b'], default: 'b', rules: [{ choice: 'a', sql: 'select true' }] }),
        { id: 'through_view', type: 'transform', config: { sql: 'select * from d' } },
        { id: 'loot_view', type: 'sink', config: { connector_id: duck.id, table: 'loot_view', mode: 'overwrite' } },
        { id: 'ordered', type: 'sink', config: { connector_id: duck.id, table: 'ordered', mode: 'overwrite' } },
        { id: 'unchosen', type: 'sink', config: { connector_id: duck.id, table: 'unchosen', mode: 'overwrite' } },
      ],
      edges: [
        { from: 'pg_settings', to: 'loot' },
        { from: 'pg_settings', to: 'd' },
        { from: 'd', to: 'through_view' },
        { from: 'through_view', to: 'loot_view' },
        // An edge from a sql node only orders the sink after it: the sink writes its one table input.
        { from: 'pg_settings', to: 'ordered' },
        { from: 'orders', to: 'ordered' },
        // Its one table input on a branch not chosen: skipped, though the sql node above it ran.
        { from: 'd', to: 'unchosen', when: 'b' },
        { from: 'pg_settings', to: 'unchosen' },
      ],
    };
    const run = await runDag(dag, {}, { connectors: [duck] });
    expect(nodeOf(run, 'loot')).toMatchObject({
      status: 'failed',
      error: { code: 'config_error', message: expect.stringContaining('exactly one input that leaves a table') },
    });
    expect(nodeOf(run, 'd')).toMatchObject({ status: 'succeeded', rows_in: 0, rows_out: 0 });
    expect(nodeOf(run, 'through_view')).toMatchObject({ status: 'succeeded', rows_out: 0 });
    expect(nodeOf(run, 'loot_view')).toMatchObject({ status: 'succeeded', rows_out: 0 });
    expect(nodeOf(run, 'ordered')).toMatchObject({ status: 'succeeded', rows_in: 2, rows_out: 2 });
    expect(nodeOf(run, 'unchosen').status).toBe('skipped');
    expect(JSON.stringify(run.outcome.nodes)).not.toMatch(/temp_directory|memory_limit|threads/);
  });

  it("keeps a constant's memory within the run's limit: no GBs taken while the statement is planned", async () => {
    // Folded while planning, this took 2-9 GB of the executor past memory_limit; computed as the query runs, DuckDB's
    // limit refuses it at once. Also through the duckdb connector's own statement.
    const huge = "repeat('a', 1000000000)";
    const dag = {
      nodes: [
        { id: 'tx', type: 'transform', config: { sql: `select ${huge} as x` } },
        { id: 'stmt', type: 'sql', config: { connector_id: duck.id, sql: `create table big as select ${huge} as x` } },
      ],
      edges: [],
    };
    // The process's peak resident size: what a folded constant takes is freed again by the time the run ends.
    const peakKib = async () => Number(/VmHWM:\s+(\d+)/.exec(await readFile('/proc/self/status', 'utf8'))![1]);
    const before = await peakKib();
    const started = performance.now();
    const run = await runDag(dag, {}, { connectors: [duck] });
    for (const id of ['tx', 'stmt'])
      expect([id, nodeOf(run, id)]).toEqual([
        id,
        expect.objectContaining({
          status: 'failed',
          error: expect.objectContaining({ message: expect.stringMatching(/Out of Memory/) }),
        }),
      ]);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect((await peakKib()) - before).toBeLessThan(512 * 1024);
  });

  it('never binds in the executor SQL whose plan needs GBs: a JSON path, a pattern (the SQL-check child binds first)', async () => {
    // The binder computes a JSON path or a pattern whatever the run's memory_limit: 2 GB and 30 s of the executor.
    const huge = "repeat('$', 2000000000)";
    const dag = {
      nodes: [
        { id: 'src', type: 'transform', config: { sql: "select 'x' as s" } },
        { id: 'tx', type: 'transform', config: { sql: `select json_extract(s, ${huge}) as j from src` } },
        {
          id: 'route',
          type: 'decision',
          config: {
            strategy: 'rules',
            default: 'b',
            rules: [{ choice: 'a', sql: `select regexp_matches(s, ${huge}) from src` }],
          },
        },
      ],
      edges: [
        { from: 'src', to: 'tx' },
        { from: 'src', to: 'route' },
      ],
    };
    const peakKib = async () => Number(/VmHWM:\s+(\d+)/.exec(await readFile('/proc/self/status', 'utf8'))![1]);
    const before = await peakKib();
    const run = await runDag(dag, {}, { connectors: [duck] });
    expectRefused(run, ['tx', 'route'], /needs more memory to plan than a statement may take/);
    expect((await peakKib()) - before).toBeLessThan(512 * 1024);
  });

  it("opens a tenant's duckdb file only in a file worker: a query or statement whose plan needs GBs fails there", async () => {
    // Binding against the tenant's file folded this JSON path in the executor: 2 GB and 30 s of it.
    const huge = "json_extract(id::varchar, repeat('$', 2000000000))";
    const dag = {
      nodes: [
        { id: 'query', type: 'source', config: { connector_id: duck.id, query: `select ${huge} as j from orders` } },
        {
          id: 'stmt',
          type: 'sql',
          config: { connector_id: duck.id, sql: `create table j as select ${huge} from orders` },
        },
      ],
      edges: [],
    };
    const peakKib = async () => Number(/VmHWM:\s+(\d+)/.exec(await readFile('/proc/self/status', 'utf8'))![1]);
    const before = await peakKib();
    const run = await runDag(dag, {}, { connectors: [duck] });
    expectRefused(run, ['query', 'stmt'], /Out of Memory|needed more memory/);
    expect((await peakKib()) - before).toBeLessThan(512 * 1024);
  });

  it('checks SQL over wide tables too: a struct of 300 fields, an enum of 500 labels', async () => {
    const fields = Array.from({ length: 300 }, (_, i) => `'field number ${i}': ${i}`).join(', ');
    const labels = Array.from({ length: 500 }, (_, i) => `'label ${i}'`).join(', ');
    const dag = {
      nodes: [
        { id: 'wide', type: 'transform', config: { sql: `select {${fields}} as s, 1 as id` } },
        {
          id: 'labels',
          type: 'transform',
          config: { sql: `select 'label 7'::enum(${labels}) as l` },
        },
        { id: 'reads_wide', type: 'transform', config: { sql: 'select s."field number 7" as f from wide' } },
        { id: 'reads_labels', type: 'transform', config: { sql: 'select l::varchar as l, id from labels, wide' } },
      ],
      edges: [
        { from: 'wide', to: 'reads_wide' },
        { from: 'wide', to: 'reads_labels' },
        { from: 'labels', to: 'reads_labels' },
      ],
    };
    const run = await runDag(dag, {}, { connectors: [duck] });
    expect(run.outcome.error).toBeNull();
    expect(nodeOf(run, 'reads_wide')).toMatchObject({ status: 'succeeded', rows_out: 1 });
    expect(nodeOf(run, 'reads_labels')).toMatchObject({ status: 'succeeded', rows_out: 1 });
  });

  it("runs a tenant's duckdb connector in its own folder: another tenant with the same path sees no table", async () => {
    const run = await runDag(
      { nodes: [{ id: 'orders', type: 'source', config: { connector_id: duck.id, table: 'orders' } }], edges: [] },
      {},
      {
        connectors: [duck],
        tenantId: 'tnt_someone_else',
      },
    );
    expect(nodeOf(run, 'orders')).toMatchObject({
      status: 'failed',
      error: { code: 'config_error', message: 'database file "wh/engine.duckdb" does not exist' },
    });
  });
});
