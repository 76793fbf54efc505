import { validateDag } from './validate-dag.js';
import { referencedConnectorIds } from './connector-refs.js';
import { DECISION_RULES_MAX } from './node-config.rules.js';
import type { Dag, DagNode, ValidationIssue } from './dag.model.js';
import { apiExampleDag, ctx, sink, source } from './testing/dag-fixtures.js';

/** Validates `node` fed by a valid source (so it never misses input) and returns its errors. */
function errorsOf(node: DagNode): ValidationIssue[] {
  const dag: Dag = {
    nodes: [source('feed'), node],
    edges: node.type === 'source' ? [] : [{ from: 'feed', to: node.id }],
  };
  return validateDag(dag, ctx).errors;
}

/** The config paths (relative to the node's config) of the invalid_node_config errors. */
function configPaths(node: DagNode): string[] {
  return errorsOf(node).map((e) => {
    expect(e.code).toBe('invalid_node_config');
    expect(e.node_id).toBe(node.id);
    return e.path!.replace(/^nodes\[1\]\.config/, '');
  });
}

const node = (type: string, config: Record<string, unknown>): DagNode => ({ id: 'n', type, config });
const llmDecision = (extra: Record<string, unknown> = {}): DagNode =>
  node('decision', {
    strategy: 'llm',
    connector_id: 'con_llm',
    prompt: 'pick',
    choices: ['a', 'b'],
    default: 'a',
    ...extra,
  });
const rulesDecision = (extra: Record<string, unknown> = {}): DagNode =>
  node('decision', {
    strategy: 'rules',
    choices: ['a', 'b'],
    default: 'b',
    rules: [{ choice: 'a', sql: 'select true' }],
    ...extra,
  });

describe('invalid_node_config: source', () => {
  it("accepts query, table, or a connector's own fields", () => {
    expect(configPaths(node('source', { connector_id: 'con_pg', query: 'select 1' }))).toEqual([]);
    expect(configPaths(node('source', { connector_id: 'con_pg', table: 't' }))).toEqual([]);
    expect(configPaths(node('source', { connector_id: 'con_s3', path: 'in/*.csv', format: 'csv' }))).toEqual([]);
  });

  it('needs a connector_id and exactly one of query or table', () => {
    expect(configPaths(node('source', {}))).toEqual(['.connector_id', '']);
    expect(configPaths(node('source', { connector_id: 'con_pg', query: 'q', table: 't' }))).toEqual(['']);
    expect(configPaths(node('source', { connector_id: 7, query: '' }))).toEqual(['.connector_id', '.query']);
  });
});

describe('invalid_node_config: source columns (type overrides)', () => {
  it('accepts a map of column names to DuckDB types', () => {
    const columns = {
      amount: 'DECIMAL(12,2)',
      id: 'BIGINT',
      tags: 'VARCHAR[]',
      point: 'STRUCT(x DOUBLE, y DOUBLE)',
      'a b': 'INTEGER[3]',
    };
    expect(configPaths(node('source', { connector_id: 'con_s3', path: 'in/*.csv', columns }))).toEqual([]);
  });

  it('refuses a type that is no type name, naming the node and the column', () => {
    const errors = errorsOf(
      node('source', {
        connector_id: 'con_s3',
        path: 'in.csv',
        columns: { x: 'INTEGER); select 1; --', ok: 'INTEGER' },
      }),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      code: 'invalid_node_config',
      node_id: 'n',
      path: 'nodes[1].config.columns["x"]',
    });
    expect(errors[0]!.message).toMatch(/^node "n": config\.columns\["x"\] must be a DuckDB type: only letters, digits/);
    expect(configPaths(node('source', { connector_id: 'con_s3', path: 'p', columns: { x: "VARCHAR'" } }))).toEqual([
      '.columns["x"]',
    ]);
    expect(configPaths(node('source', { connector_id: 'con_s3', path: 'p', columns: { x: 'T'.repeat(201) } }))).toEqual(
      ['.columns["x"]'],
    );
  });

  it('refuses a non-object, an empty name and a non-string type', () => {
    expect(configPaths(node('source', { connector_id: 'con_s3', path: 'p', columns: ['amount'] }))).toEqual([
      '.columns',
    ]);
    expect(configPaths(node('source', { connector_id: 'con_s3', path: 'p', columns: 'amount DECIMAL' }))).toEqual([
      '.columns',
    ]);
    expect(
      configPaths(node('source', { connector_id: 'con_s3', path: 'p', columns: { '': 'INTEGER', n: 3, e: ' ' } })),
    ).toEqual(['.columns[""]', '.columns["n"]', '.columns["e"]']);
  });

  it("columns alone is not the connector's own field: a source still needs query, table or e.g. path", () => {
    expect(configPaths(node('source', { connector_id: 'con_s3', columns: { a: 'INTEGER' } }))).toEqual(['']);
  });
});

describe('invalid_node_config: transform, sql', () => {
  it('transform needs a non-empty sql', () => {
    expect(configPaths(node('transform', { sql: 'select 1' }))).toEqual([]);
    expect(configPaths(node('transform', {}))).toEqual(['.sql']);
    expect(configPaths(node('transform', { sql: '  ' }))).toEqual(['.sql']);
  });

  it('sql needs a connector_id and a sql', () => {
    expect(configPaths(node('sql', { connector_id: 'con_pg', sql: 'refresh materialized view v' }))).toEqual([]);
    expect(configPaths(node('sql', { sql: 3 }))).toEqual(['.connector_id', '.sql']);
  });

  it('an unknown field of a transform, a sql node or a decision is a typo, reported with the fields it takes', () => {
    expect(configPaths(node('transform', { sql: 'select 1', retry: 3, timeout_seconds: 5 }))).toEqual(['.retry']);
    expect(configPaths(node('sql', { connector_id: 'con_pg', sql: 'select 1', timeout_second: 5 }))).toEqual([
      '.timeout_second',
    ]);
    expect(configPaths(rulesDecision({ choise: 'a' }))).toEqual(['.choise']);
    expect(configPaths(llmDecision({ sample_row: 5, min_confidence: 0.5 }))).toEqual(['.sample_row']);
    const [error] = errorsOf(node('transform', { sql: 'select 1', retry: 3 }));
    expect(error!.message).toBe(
      'node "n": config.retry is not a field of a transform node (its fields: timeout_seconds, retries, sql)',
    );
    // A source's and a sink's other fields are their connector's own (path, topic...), where its driver declares none.
    expect(configPaths(node('source', { connector_id: 'con_s3', path: 'in/a.csv', format: 'csv' }))).toEqual([]);
  });

  it("a source's or sink's field its connector's driver does not declare is a typo", () => {
    expect(configPaths(node('source', { connector_id: 'con_pg', query: 'select $1', params: [1] }))).toEqual([]);
    expect(configPaths(node('source', { connector_id: 'con_pg', table: 't', timeout_second: 5 }))).toEqual([
      '.timeout_second',
    ]);
    expect(configPaths(sink('out', { table: 'x', mdoe: 'overwrite', kye: ['id'] }))).toEqual(['.mdoe', '.kye']);
    const [error] = errorsOf(sink('out', { table: 'x', mdoe: 'overwrite' }));
    expect(error!.message).toBe(
      'node "out": config.mdoe is not a field of a sink on a postgres connector (its fields: timeout_seconds, retries, connector_id, table, mode, key, create, schema_evolution)',
    );
  });
});

describe('invalid_node_config: sink', () => {
  it('mode defaults to append; upsert needs a key', () => {
    expect(configPaths(node('sink', { connector_id: 'con_pg', table: 't' }))).toEqual([]);
    expect(
      configPaths(node('sink', { connector_id: 'con_pg', table: 't', mode: 'upsert', key: ['id', 'day'] })),
    ).toEqual([]);
    expect(configPaths(node('sink', { connector_id: 'con_pg', table: 't', mode: 'upsert' }))).toEqual(['.key']);
    expect(configPaths(node('sink', { connector_id: 'con_pg', table: 't', mode: 'upsert', key: [] }))).toEqual([
      '.key',
    ]);
    expect(configPaths(node('sink', { connector_id: 'con_pg', table: 't', mode: 'upsert', key: ['id', ''] }))).toEqual([
      '.key[1]',
    ]);
  });

  it("mode must be known; a table or the connector's own target is required", () => {
    expect(configPaths(node('sink', { connector_id: 'con_pg', table: 't', mode: 'merge' }))).toEqual(['.mode']);
    expect(configPaths(node('sink', { connector_id: 'con_pg' }))).toEqual(['.table']);
    expect(configPaths(node('sink', { connector_id: 'con_s3', path: 'out/', format: 'parquet' }))).toEqual([]);
  });
});

describe('invalid_node_config: decision', () => {
  it('accepts a rules and an llm decision', () => {
    expect(configPaths(rulesDecision())).toEqual([]);
    expect(configPaths(llmDecision({ min_confidence: 0.7, sample_rows: 50 }))).toEqual([]);
  });

  it('strategy, choices and default', () => {
    expect(configPaths(node('decision', {}))).toEqual(['.strategy', '.choices', '.default']);
    expect(configPaths(rulesDecision({ strategy: 'vote' }))).toEqual(['.strategy']);
    expect(configPaths(rulesDecision({ choices: [] }))).toEqual(['.choices']);
    expect(configPaths(rulesDecision({ choices: ['a', 'a', ''] }))).toEqual(['.choices[1]', '.choices[2]', '.default']);
    expect(configPaths(rulesDecision({ default: 'c' }))).toEqual(['.default']);
  });

  it('rules: a non-empty list of { choice among choices, sql }', () => {
    expect(configPaths(rulesDecision({ rules: [] }))).toEqual(['.rules']);
    expect(configPaths(rulesDecision({ rules: undefined }))).toEqual(['.rules']);
    expect(configPaths(rulesDecision({ rules: [{ choice: 'z', sql: '' }, 'x'] }))).toEqual([
      '.rules[0].choice',
      '.rules[0].sql',
      '.rules[1]',
    ]);
    const rule = { choice: 'a', sql: 'select true' };
    expect(configPaths(rulesDecision({ rules: Array(DECISION_RULES_MAX).fill(rule) }))).toEqual([]);
    expect(configPaths(rulesDecision({ rules: Array(DECISION_RULES_MAX + 1).fill(rule) }))).toEqual(['.rules']);
  });

  it('llm: connector_id, prompt, min_confidence in [0, 1], sample_rows 1..1000', () => {
    expect(configPaths(llmDecision({ connector_id: undefined, prompt: '' }))).toEqual(['.connector_id', '.prompt']);
    expect(configPaths(llmDecision({ min_confidence: 1.5, sample_rows: 0 }))).toEqual([
      '.min_confidence',
      '.sample_rows',
    ]);
    expect(configPaths(llmDecision({ sample_rows: 2.5 }))).toEqual(['.sample_rows']);
    expect(configPaths(llmDecision({ sample_rows: 1001 }))).toEqual(['.sample_rows']);
  });

  it('llm: every prompt placeholder must be known, each unknown one reported', () => {
    const known = 'Rows {{rows}} ({{ row_count }} of them, columns {{columns}}), region {{params.region}}';
    expect(configPaths(llmDecision({ prompt: known }))).toEqual([]);
    const errors = errorsOf(llmDecision({ prompt: 'Look at {{rowz}} for {{params}} and {{ input.x }}' }));
    expect(errors.map((e) => e.path)).toEqual([
      'nodes[1].config.prompt',
      'nodes[1].config.prompt',
      'nodes[1].config.prompt',
    ]);
    expect(errors[0]?.message).toBe(
      'node "n": config.prompt has an unknown placeholder {{rowz}} (known: {{rows}}, {{row_count}}, {{columns}}, {{params.<name>}})',
    );
    expect(errors[2]?.message).toContain('{{ input.x }}');
    expect(errorsOf(llmDecision({ prompt: 'Rows: {{rows}' }))[0]?.message).toBe(
      'node "n": config.prompt has unbalanced braces near "Rows: {{rows}"',
    );
  });

  it('llm: rules belong to the rules strategy', () => {
    expect(configPaths(llmDecision({ rules: [{ choice: 'a', sql: 'select true' }] }))).toEqual(['.rules']);
  });

  it('llm: a connector that cannot act as llm is connector_unfit; a missing one unknown_connector', () => {
    const unfit = errorsOf(llmDecision({ connector_id: 'con_pg' }));
    expect(unfit).toEqual([
      expect.objectContaining({
        code: 'connector_unfit',
        path: 'nodes[1].config.connector_id',
        message: expect.stringContaining('cannot act as llm'),
      }),
    ]);
    expect(errorsOf(llmDecision({ connector_id: 'con_nope' })).map((e) => e.code)).toEqual(['unknown_connector']);
  });
});

describe('invalid_node_config: timeout_seconds and retries on any node', () => {
  it('accepts sane values', () => {
    expect(configPaths(node('transform', { sql: 's', timeout_seconds: 0.5, retries: 0 }))).toEqual([]);
    expect(configPaths(node('transform', { sql: 's', timeout_seconds: 86_400, retries: 10 }))).toEqual([]);
  });

  it.each([
    [{ timeout_seconds: 0 }, '.timeout_seconds'],
    [{ timeout_seconds: 86_401 }, '.timeout_seconds'],
    [{ timeout_seconds: '60' }, '.timeout_seconds'],
    [{ retries: -1 }, '.retries'],
    [{ retries: 11 }, '.retries'],
    [{ retries: 1.5 }, '.retries'],
  ])('refuses %j', (extra, path) => {
    expect(configPaths(node('transform', { sql: 's', ...extra }))).toEqual([path]);
  });
});

describe('timeout_seconds and retries on the node itself (api.md: every node may also set them)', () => {
  const onNode = (extra: Record<string, unknown>, config: Record<string, unknown> = {}): DagNode => ({
    ...node('transform', { sql: 's', ...config }),
    ...extra,
  });

  it('accepts them beside the config, and the same value in both places', () => {
    expect(errorsOf(onNode({ timeout_seconds: 30, retries: 2 }))).toEqual([]);
    expect(errorsOf(onNode({ retries: 2 }, { retries: 2, timeout_seconds: 5 }))).toEqual([]);
  });

  it('refuses a bad value where it stands, and two different values', () => {
    expect(errorsOf(onNode({ timeout_seconds: 0, retries: 11 }))).toEqual([
      expect.objectContaining({
        code: 'invalid_node_config',
        path: 'nodes[1].timeout_seconds',
        message: expect.stringMatching(/^node "n": timeout_seconds /),
      }),
      expect.objectContaining({ code: 'invalid_node_config', path: 'nodes[1].retries' }),
    ]);
    expect(errorsOf(onNode({ retries: 1 }, { retries: 3 }))).toEqual([
      expect.objectContaining({
        code: 'invalid_node_config',
        path: 'nodes[1].retries',
        message: 'node "n": retries is set on the node (1) and in its config (3); set it once',
      }),
    ]);
    // A value refused where it stands is not reported again as a conflict.
    expect(errorsOf(onNode({ retries: 11 }, { retries: 3 })).map((e) => e.path)).toEqual(['nodes[1].retries']);
  });
});

describe('connectors', () => {
  it('unknown_connector with the connector_id path', () => {
    expect(errorsOf(sink('n', { connector_id: 'con_gone' }))).toEqual([
      expect.objectContaining({ code: 'unknown_connector', node_id: 'n', path: 'nodes[1].config.connector_id' }),
    ]);
  });

  it("connector_unfit when the connector cannot play the node's role", () => {
    const unfit = [
      node('sql', { connector_id: 'con_s3', sql: 'vacuum' }),
      llmDecision({ connector_id: 'con_pg' }),
      source('n', { connector_id: 'con_llm' }),
    ];
    for (const n of unfit) {
      expect(errorsOf(n)).toEqual([
        expect.objectContaining({ code: 'connector_unfit', node_id: 'n', path: 'nodes[1].config.connector_id' }),
      ]);
    }
  });

  it('referencedConnectorIds lists each id once, only of nodes that use a connector', () => {
    const dag = apiExampleDag();
    dag.nodes.push({ id: 'r', type: 'decision', config: { strategy: 'rules', connector_id: 'con_rules_ignored' } });
    dag.nodes.push({ id: 'x', type: 'transform', config: { sql: 's', connector_id: 'con_transform_ignored' } });
    expect(referencedConnectorIds(dag)).toEqual(['con_pg', 'con_llm']);
  });
});
