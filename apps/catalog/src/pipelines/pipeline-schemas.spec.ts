import { validateDag, type Dag } from '@conduit/dag';
import type { RecordedSourceSchema, RunNodeColumn } from '@conduit/contracts';
import { branch, chain, dagNodes, linearDag, rulesDecision } from '@conduit/testing';
import { schemaIssues, type SchemaEvidence } from './pipeline-schemas.js';

const PG = { connector_id: 'con_pg', table: 'orders' };
const ORDERS: RunNodeColumn[] = [
  { name: 'id', type: 'BIGINT', source_type: 'bigint' },
  { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'numeric(12,2)' },
  { name: 'note', type: 'VARCHAR', source_type: 'text' },
];

const recorded = (
  node_id: string,
  config: Record<string, unknown>,
  columns: RunNodeColumn[] = ORDERS,
): RecordedSourceSchema => ({
  node_id,
  run_id: 'run_1',
  node: { type: 'source', config },
  columns,
});
const evidence = (...sources: RecordedSourceSchema[]): SchemaEvidence => ({ kind: 'recorded', reply: { sources } });

const { transform, sink } = dagNodes('con_pg');

/** src -> shape (transform) -> load (sink); `sql` is shape's SQL. */
function shapeDag(sql: string, source: Record<string, unknown> = PG): Dag {
  return linearDag({ id: 'src', type: 'source', config: source }, transform('shape', sql), sink('load', 'out'));
}

// The connector checks are not what is tested here: every connector is a PostgreSQL one.
const check = (dag: Dag, seen: SchemaEvidence) =>
  schemaIssues(
    dag,
    validateDag(dag, { connector: () => ({ type: 'postgres', roles: ['source', 'sink', 'sql'] }) }).execution_order,
    seen,
  );

describe('schemaIssues', () => {
  it('accepts SQL that binds to the recorded columns', async () => {
    expect(
      await check(
        shapeDag('select id, amount * 2 as doubled from src where amount > 0'),
        evidence(recorded('src', PG)),
      ),
    ).toEqual({ errors: [], warnings: [] });
  });

  it('reports a column the source does not have on the transform, with its path in the DAG', async () => {
    const { errors } = await check(shapeDag('select id, discount from src'), evidence(recorded('src', PG)));
    expect(errors).toEqual([
      {
        code: 'unknown_column',
        node_id: 'shape',
        path: 'nodes[1].config.sql',
        message: expect.stringMatching(/^node "shape": the SQL .*"discount"/),
      },
    ]);
  });

  it('reports a table that is no node of the DAG', async () => {
    const { errors } = await check(shapeDag('select * from order_lines'), evidence(recorded('src', PG)));
    expect(errors).toEqual([
      {
        code: 'unknown_table',
        node_id: 'shape',
        path: 'nodes[1].config.sql',
        message: 'node "shape": the SQL reads the table "order_lines", which is none of its inputs ("src")',
      },
    ]);
  });

  // An edge from a sql node only orders (LEAVES_TABLE): the transform is still checked against its one table input.
  it('checks a transform beside an ordering edge from a sql node, naming only its table inputs', async () => {
    const dag = shapeDag('select * from order_lines');
    dag.nodes.push({ id: 'seed', type: 'sql', config: { connector_id: 'con_pg', sql: 'select 1' } });
    dag.edges.push({ from: 'seed', to: 'shape' });
    const { errors } = await check(dag, evidence(recorded('src', PG)));
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'unknown_table',
        node_id: 'shape',
        message: 'node "shape": the SQL reads the table "order_lines", which is none of its inputs ("src")',
      }),
    ]);
  });

  it('reports another binder error (a type mismatch the run would fail on) as sql_binding', async () => {
    const { errors } = await check(shapeDag('select id from src where note > 1'), evidence(recorded('src', PG)));
    expect(errors).toEqual([
      expect.objectContaining({ code: 'sql_binding', node_id: 'shape', path: 'nodes[1].config.sql' }),
    ]);
  });

  it('says nothing once the source node changed since the run (its columns may have too)', async () => {
    const changed = { ...PG, query: 'select id from orders' };
    expect(await check(shapeDag('select id, discount from src', changed), evidence(recorded('src', PG)))).toEqual({
      errors: [],
      warnings: [],
    });
  });

  it('says nothing where the run knew no types (a CSV hand-off) or cut the columns', async () => {
    const untyped = ORDERS.map((c) => ({ name: c.name, type: null }));
    expect((await check(shapeDag('select discount from src'), evidence(recorded('src', PG, untyped)))).errors).toEqual(
      [],
    );
    const cut = [...ORDERS, { name: `${'x'.repeat(255)}…`, type: 'VARCHAR' }];
    expect((await check(shapeDag('select discount from src'), evidence(recorded('src', PG, cut)))).errors).toEqual([]);
  });

  it('lets known schemas flow through transforms and a decision, and checks rules SQL', async () => {
    const dag: Dag = {
      nodes: [
        { id: 'src', type: 'source', config: PG },
        transform('doubled', 'select id, amount * 2 as twice from src'),
        rulesDecision('route', {
          choices: ['big', 'small'],
          default: 'small',
          rules: [{ choice: 'big', sql: 'select max(amount) > 100 from doubled' }],
        }),
        transform('report', 'select id, twice, amount from route'),
        sink('load', 'out'),
      ],
      edges: [
        ...chain('src', 'doubled', 'route'),
        ...branch('route', 'big', 'report', 'load'),
        ...branch('route', 'small', 'load'),
      ],
    };
    const { errors } = await check(dag, evidence(recorded('src', PG)));
    expect(errors.map((e) => [e.code, e.node_id, e.path])).toEqual([
      ['unknown_column', 'route', 'nodes[2].config.rules[0].sql'],
      ['unknown_column', 'report', 'nodes[3].config.sql'],
    ]);
  });

  it('says nothing about a table that is another node of the DAG, whose columns are unknown', async () => {
    const dag = shapeDag('select s.id, o.x from src s join Other o on o.id = s.id');
    dag.nodes.push({ id: 'other', type: 'source', config: { connector_id: 'con_pg', table: 'other' } });
    dag.edges.push({ from: 'other', to: 'load' });
    expect((await check(dag, evidence(recorded('src', PG)))).errors).toEqual([]);
  });

  it('stops at its time budget with a warning naming the first node left unchecked', async () => {
    const dag = shapeDag('select id, discount from src');
    const order = validateDag(dag, {
      connector: () => ({ type: 'postgres', roles: ['source', 'sink', 'sql'] }),
    }).execution_order;
    expect(await schemaIssues(dag, order, evidence(recorded('src', PG)), -1)).toEqual({
      errors: [],
      warnings: [
        {
          code: 'schemas_unchecked',
          node_id: 'shape',
          message: expect.stringContaining('node "shape" and those after it'),
        },
      ],
    });
  });

  it("binds outside the catalog's process: a constant the binder folds does not grow it", async () => {
    // A JSON path is folded while binding, outside DuckDB's memory limit: 2 GB of the process that binds.
    const dag = shapeDag("select json_extract(note, repeat('$', 2000000000)) as j from src");
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const { errors } = await check(dag, evidence(recorded('src', PG)));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    // The child cannot take that much: binding fails there, reported as the SQL not binding, the message cut short.
    expect(errors).toEqual([expect.objectContaining({ code: 'sql_binding', node_id: 'shape' })]);
    expect(errors[0]!.message.length).toBeLessThan(1_200);
  });

  it('warns, and reports nothing, when the recorded schemas could not be read', async () => {
    expect(await check(shapeDag('select discount from src'), { kind: 'unavailable' })).toEqual({
      errors: [],
      warnings: [{ code: 'schemas_unchecked', message: expect.stringContaining('not checked') }],
    });
  });
});
