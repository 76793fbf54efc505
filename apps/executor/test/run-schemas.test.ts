// Each node reports its output columns with their DuckDB types (issue 15, runs show schemas), on a real DuckDB and the
// real postgres driver against a throwaway schema.
import { branch, chain, dagNodes, linearDag, rulesDecision } from '@conduit/testing';
import { CONNECTOR_ID, nodeOf, runDag } from './support/engine-harness.js';
import { useSuiteSchema } from './support/postgres.js';

const { source, sink, transform } = dagNodes(CONNECTOR_ID);

const { config } = useSuiteSchema(async (db) => {
  await db.query(`create table payments (id integer, amount numeric(12,2), note text)`);
  await db.query(`insert into payments values (1, 10.25, 'a'), (2, -3.00, 'b'), (3, 0.10, null)`);
  await db.query(`create table doubled (id integer, doubled numeric(24,2), note text)`);
  await db.query(`create table payments_copy (like payments)`);
});

describe('node columns in the run outcome', () => {
  it('reports the source, transform and sink columns with the DuckDB types of their tables, never a row value', async () => {
    const dag = linearDag(
      source('src', { query: 'select id, amount, note from payments' }),
      transform('calc', 'select id, amount * 2 as doubled, note from src where amount > 0'),
      sink('out', 'doubled'),
    );
    const run = await runDag(dag, config);
    expect(run.outcome).toMatchObject({ status: 'succeeded', error: null, stats: { rows_read: 3, rows_written: 2 } });

    // The source keeps the type PostgreSQL declared beside the DuckDB type its table has.
    expect(nodeOf(run, 'src').columns).toEqual([
      { name: 'id', type: 'INTEGER', source_type: 'integer' },
      { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'numeric(12,2)' },
      { name: 'note', type: 'VARCHAR', source_type: 'text' },
    ]);
    const calc = nodeOf(run, 'calc').columns!;
    expect(calc).toEqual([
      { name: 'id', type: 'INTEGER' },
      { name: 'doubled', type: 'DECIMAL(18,2)' },
      { name: 'note', type: 'VARCHAR' },
    ]);
    // A sink reports the columns it wrote: its input's.
    expect(nodeOf(run, 'out').columns).toEqual(calc);
    expect(JSON.stringify(run.outcome.nodes)).not.toMatch(/10\.25|20\.50|"a"/);

    // Columns appear with success: a running node has none yet.
    for (const change of run.changes.filter((c) => c.status === 'running')) expect(change.columns).toBeNull();
    expect(run.changes.filter((c) => c.id === 'calc' && c.status === 'succeeded').map((c) => c.columns)).toEqual([
      calc,
    ]);
  });

  it("reports a sink's columns after a typed source as its input's DuckDB columns, without the source's types", async () => {
    // A table that does not exist yet: the rows go through DuckDB, not the CSV hand-off.
    const dag = linearDag(source('src', { query: 'select id, amount from payments' }), sink('out', 'payments_new'));
    const run = await runDag(dag, config);
    expect(run.outcome.status).toBe('succeeded');
    expect(nodeOf(run, 'src').columns).toEqual([
      { name: 'id', type: 'INTEGER', source_type: 'integer' },
      { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'numeric(12,2)' },
    ]);
    expect(nodeOf(run, 'out').columns).toEqual([
      { name: 'id', type: 'INTEGER' },
      { name: 'amount', type: 'DECIMAL(12,2)' },
    ]);
  });

  it("reports a decision's columns (its input's), null for a failed node and for the nodes it skipped", async () => {
    const dag = {
      nodes: [
        source('src', { query: 'select id, note from payments' }),
        rulesDecision('route', {
          choices: ['yes', 'no'],
          default: 'no',
          rules: [{ choice: 'yes', sql: 'select count(*) > 0 from src' }],
        }),
        transform('broken', 'select no_such_column from route'),
        sink('after', 'payments_copy'),
      ],
      edges: [...chain('src', 'route'), ...branch('route', 'yes', 'broken', 'after')],
    };
    const run = await runDag(dag, config);
    expect(run.outcome.status).toBe('failed');
    const src = nodeOf(run, 'src').columns!;
    expect(src.map((c) => c.name)).toEqual(['id', 'note']);
    // A decision's output is its input's rows: the same names and DuckDB types (the source type stays the source's).
    expect(nodeOf(run, 'route')).toMatchObject({
      status: 'succeeded',
      columns: src.map(({ name, type }) => ({ name, type })),
    });
    expect(nodeOf(run, 'broken')).toMatchObject({ status: 'failed', columns: null });
    expect(nodeOf(run, 'after')).toMatchObject({ status: 'skipped', columns: null });
  });

  it('reports the names a CSV hand-off knows, without types, and logs when a wide output is cut to the bound', async () => {
    const handoff = await runDag(
      linearDag(source('extract', { query: 'select * from payments' }), sink('load', 'payments_copy')),
      config,
    );
    expect(handoff.outcome.status).toBe('succeeded');
    const named = [
      { name: 'id', type: null },
      { name: 'amount', type: null },
      { name: 'note', type: null },
    ];
    expect(nodeOf(handoff, 'extract').columns).toEqual(named);
    expect(nodeOf(handoff, 'load').columns).toEqual(named);

    const select = Array.from({ length: 1002 }, (_, i) => `id as c${i}`).join(', ');
    const wide = await runDag(
      linearDag(source('src', { query: 'select id from payments' }), transform('wide', `select ${select} from src`)),
      config,
    );
    expect(wide.outcome.status).toBe('succeeded');
    expect(nodeOf(wide, 'wide').columns).toHaveLength(1000);
    expect(wide.lines).toContainEqual({
      level: 'info',
      node_id: 'wide',
      message: '1002 output columns; the run status shows the first 1000',
    });
  });
});
