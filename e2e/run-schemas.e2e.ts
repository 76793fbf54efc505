import type { Run, RunNodeColumn } from '@conduit/contracts';
import mysql from 'mysql2/promise';
import {
  createConnector,
  createPipelineAndJob,
  extractLoadDag,
  nodeOf,
  runDagToEnd,
  triggerRun,
  waitForRunEnd,
} from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';
import { createMariaDatabase, type MariaDatabase } from './support/maria-database.js';

// Runs show schemas (issue 15), every service its own process: Get Run Status answers each node's output columns
// with their types. The source is MySQL (a typed read: the server's field metadata becomes DuckDB types), the sink
// PostgreSQL; a PostgreSQL -> PostgreSQL copy goes through the CSV hand-off, which knows names only.
let mariaDb: MariaDatabase;
let maria: mysql.Connection;
let mysqlConnectorId: string;

beforeAll(async () => {
  mariaDb = await createMariaDatabase('select');
  maria = mariaDb.root;
  await maria.query('create table payments (id int primary key, amount decimal(12,2) not null, note varchar(40))');
  await maria.query(
    `insert into payments values (1, 10.25, 'first'), (2, -3.00, 'refund'), (3, 0.10, null), (4, 99999.99, 'big')`,
  );
});

const target = useTargetStack({
  env: { RATE_LIMIT_PER_MINUTE: '100000' },
  prepare: async (db) => {
    await db.query('create table doubled (id integer primary key, doubled numeric(18,2) not null)');
    await db.query('create table payments_pg (id integer, amount numeric(12,2), note text)');
    await db.query(`insert into payments_pg values (1, 10.25, 'first'), (2, null, 'second')`);
    await db.query('create table payments_copy (like payments_pg)');
  },
});

beforeAll(async () => {
  mysqlConnectorId = await createConnector(target.stack, 'mysql', mariaDb.config(), 'maria');
});

afterAll(async () => {
  await mariaDb?.drop();
});

const columnsOf = (run: Run): Record<string, RunNodeColumn[] | null> =>
  Object.fromEntries(run.nodes.map((n) => [n.id, n.columns]));

describe("Get Run Status shows each node's columns", () => {
  it('source (typed, with its source types) -> transform -> sink, null before the nodes ran', async () => {
    const dag = {
      nodes: [
        { id: 'src', type: 'source', config: { connector_id: mysqlConnectorId, table: 'payments' } },
        {
          id: 'calc',
          type: 'transform',
          config: { sql: 'select id, amount * 2 as doubled from src where amount > 0' },
        },
        { id: 'out', type: 'sink', config: { connector_id: target.connectorId, table: 'doubled', mode: 'append' } },
      ],
      edges: [
        { from: 'src', to: 'calc' },
        { from: 'calc', to: 'out' },
      ],
    };
    const { jobId } = await createPipelineAndJob(target.stack, dag);
    const queued = await triggerRun(target.stack, jobId);
    expect(columnsOf(queued)).toEqual({ src: null, calc: null, out: null });

    const run = await waitForRunEnd(target.stack, jobId, queued.id, 60_000);
    expect(run).toMatchObject({ status: 'succeeded', error: null, stats: { rows_read: 4, rows_written: 3 } });
    const calc = [
      { name: 'id', type: 'INTEGER' },
      { name: 'doubled', type: 'DECIMAL(18,2)' },
    ];
    expect(columnsOf(run)).toEqual({
      src: [
        { name: 'id', type: 'INTEGER', source_type: 'int' },
        { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'decimal(12,2)' },
        // The MySQL driver's own name for varchar(40) is its decision (docs/type-mapping.md).
        { name: 'note', type: 'VARCHAR', source_type: expect.any(String) },
      ],
      calc,
      // A sink shows the columns it wrote.
      out: calc,
    });
    expect(Object.keys(nodeOf(run, 'src'))).toContain('columns');
    // Exact to the cent, and no row value in the run status.
    const { rows } = await target.db.query<{ total: string }>('select sum(doubled)::text as total from doubled');
    expect(rows[0]!.total).toBe('200020.68');
    expect(JSON.stringify(run.nodes)).not.toMatch(/10\.25|99999|first|refund/);
  });

  it('a PostgreSQL -> PostgreSQL CSV hand-off shows the column names without types', async () => {
    const dag = extractLoadDag(
      { connector_id: target.connectorId, query: 'select id, amount, note from payments_pg' },
      { connector_id: target.connectorId, table: 'payments_copy', mode: 'append' },
    );
    const run = await runDagToEnd(target.stack, dag, 60_000);
    expect(run.status).toBe('succeeded');
    const named = ['id', 'amount', 'note'].map((name) => ({ name, type: null }));
    expect(columnsOf(run)).toEqual({ extract: named, load: named });
  });

  it("the OpenAPI document says what a node's columns hold", async () => {
    const spec = (await (await fetch(`${target.stack.baseUrl}/v2/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { description?: string }>>;
    };
    const description = spec.paths['/v2/jobs/{job_id}/runs/{run_id}']?.['get']?.description ?? '';
    expect(description).toContain('`columns`');
    expect(description).toContain('never any row value');
  });
});
