import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import duckdb from '@duckdb/node-api';
import { startStack, waitFor, type Stack } from '@conduit/testing';
import type {
  ConnectionTestResult,
  CreatedApiKey,
  Page,
  ProblemDocument,
  Run,
  RunLogLine,
  Tenant as ApiTenant,
} from '@conduit/contracts';
import pg from 'pg';
import { call } from './support/client.js';
import { nodeOf, uniqueName } from './support/helpers.js';

// Issue #14, findings 1 and 3, as an attacker with a write-scoped key of an ordinary tenant does it: SQL that reads
// the stack's secrets, writes or attaches files, changes settings or runs a second statement, in a transform, a
// rules decision and a duckdb connector. Refused at save (422 naming the node), and refused again at run time for
// pipelines stored before that check (or SQL the save-time check cannot judge without the tables). Nothing is read
// and no file is created. And two tenants' duckdb connectors with the same relative path never share a file.
const MARKER = `conduit-stack-secret-${randomUUID()}`;
let stack: Stack;
let dataRoot: string;
let secrets: string;
let secretFile: string;

interface Tenant {
  tenantId: string;
  key: string;
}
let attacker: Tenant;
let neighbour: Tenant;

/** A new ordinary tenant and a write-scoped key of it (its first key is an admin key; attackers get less). */
async function tenantWithWriteKey(): Promise<Tenant> {
  const made = await call<{ tenant: ApiTenant; api_key: CreatedApiKey }>(stack, 'POST', '/v2/tenants', {
    body: { name: uniqueName('tenant') },
  });
  expect(made.status).toBe(201);
  const key = await call<CreatedApiKey>(stack, 'POST', '/v2/api-keys', {
    key: made.body.api_key.key,
    body: { name: uniqueName('w'), scopes: ['read', 'write'] },
  });
  expect(key.status).toBe(201);
  return { tenantId: made.body.tenant.id, key: key.body.key };
}

beforeAll(async () => {
  dataRoot = await mkdtemp(join(tmpdir(), 'conduit-e2e-data-'));
  // Stands for the stack's .conduit/local.env: a file the executor's user can read, holding a known marker.
  secrets = await mkdtemp(join(tmpdir(), 'conduit-e2e-secrets-'));
  secretFile = join(secrets, 'local.env');
  await writeFile(secretFile, `SECRETS_KEY=${MARKER}\n`);
  stack = await startStack({ CONNECTOR_DATA_ROOT: dataRoot });
  attacker = await tenantWithWriteKey();
  neighbour = await tenantWithWriteKey();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await rm(dataRoot, { recursive: true, force: true });
  await rm(secrets, { recursive: true, force: true });
});

async function createAs<T = { id: string }>(who: Tenant, path: string, body: Record<string, unknown>): Promise<T> {
  const res = await call<T>(stack, 'POST', path, { key: who.key, body });
  if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

/** Triggers a run of the pipeline and waits for its end, as `who`. */
async function runPipeline(who: Tenant, pipelineId: string): Promise<Run> {
  const job = await createAs(who, '/v2/jobs', { name: uniqueName('job'), pipeline_id: pipelineId });
  const queued = await call<Run>(stack, 'POST', `/v2/jobs/${job.id}/run`, { key: who.key });
  expect(queued.status).toBe(202);
  let run: Run | undefined;
  await waitFor(
    async () => {
      run = (await call<Run>(stack, 'GET', `/v2/jobs/${job.id}/runs/${queued.body.id}`, { key: who.key })).body;
      return ['succeeded', 'failed', 'canceled'].includes(run.status);
    },
    { what: `run ${queued.body.id} to end`, timeoutMs: 60_000 },
  );
  const logs = await call<Page<RunLogLine>>(stack, 'GET', `/v2/jobs/${job.id}/runs/${queued.body.id}/logs?limit=200`, {
    key: who.key,
  });
  expect(logs.text).not.toContain(MARKER);
  return run!;
}

async function runDag(who: Tenant, dag: Record<string, unknown>): Promise<Run> {
  const pipeline = await createAs<{ id: string; status: string }>(who, '/v2/pipelines', {
    name: uniqueName('pln'),
    dag,
  });
  expect(pipeline.status).toBe('valid');
  return runPipeline(who, pipeline.id);
}

/**
 * A pipeline stored with `dag` as an earlier release would have stored it (before SQL was checked at save): created
 * valid through the API, then its DAG replaced in the catalog's table, as the upgrade would find it.
 */
async function storedBeforeTheCheck(
  who: Tenant,
  valid: Record<string, unknown>,
  dag: Record<string, unknown>,
): Promise<string> {
  const pipeline = await createAs<{ id: string; status: string }>(who, '/v2/pipelines', {
    name: uniqueName('old'),
    dag: valid,
  });
  expect(pipeline.status).toBe('valid');
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    const updated = await db.query('update catalog.pipelines set dag = $1 where id = $2', [
      JSON.stringify(dag),
      pipeline.id,
    ]);
    expect(updated.rowCount).toBe(1);
  } finally {
    await db.end();
  }
  return pipeline.id;
}

const filesBeside = async (): Promise<string[]> => (await readdir(secrets)).sort();

/** A duckdb connector of `who` at `path`, with a table `t` of one row made by a run. */
async function warehouse(who: Tenant, path: string, row: string): Promise<string> {
  const connector = await createAs(who, '/v2/connectors', { name: uniqueName('wh'), type: 'duckdb', config: { path } });
  const made = await runDag(who, {
    nodes: [
      {
        id: 'make',
        type: 'sql',
        config: { connector_id: connector.id, sql: `create or replace table t as select '${row}' as content` },
      },
    ],
    edges: [],
  });
  expect(made.status).toBe('succeeded');
  return connector.id;
}

function pipelineOf(
  connectorId: string,
  sql: { transform?: string; rule?: string; query?: string },
): Record<string, unknown> {
  return {
    nodes: [
      { id: 'rows', type: 'source', config: { connector_id: connectorId, query: sql.query ?? 'select * from t' } },
      { id: 'shape', type: 'transform', config: { sql: sql.transform ?? 'select * from rows' } },
      {
        id: 'route',
        type: 'decision',
        config: {
          strategy: 'rules',
          choices: ['a', 'b'],
          default: 'b',
          rules: [{ choice: 'a', sql: sql.rule ?? 'select true' }],
        },
      },
    ],
    edges: [
      { from: 'rows', to: 'shape' },
      { from: 'shape', to: 'route' },
    ],
  };
}

describe('SQL that reaches beyond its tables', () => {
  const attacks = () => {
    const out = join(secrets, 'stolen.csv');
    return [
      {
        name: 'read_text of the secrets',
        field: { transform: `select content from read_text('${secretFile}')` },
        node: 'shape',
        path: 'dag.nodes[1].config.sql',
      },
      {
        name: 'COPY to a file',
        field: { transform: `copy (select * from rows) to '${out}'` },
        node: 'shape',
        path: 'dag.nodes[1].config.sql',
      },
      {
        name: 'ATTACH a file',
        field: { rule: `attach '${join(secrets, 'other.db')}' as other` },
        node: 'route',
        path: 'dag.nodes[2].config.rules[0].sql',
      },
      {
        name: 'SET a limit',
        field: { rule: "set memory_limit = '100GB'" },
        node: 'route',
        path: 'dag.nodes[2].config.rules[0].sql',
      },
      {
        name: 'a second statement',
        field: { transform: 'select 1 as a; select 2 as b' },
        node: 'shape',
        path: 'dag.nodes[1].config.sql',
      },
      {
        name: 'read_text in a duckdb source query',
        field: { query: `select * from read_text('${secretFile}')` },
        node: 'rows',
        path: 'dag.nodes[0].config.query',
      },
      {
        name: 'a second statement in a duckdb source query',
        field: { query: 'select * from t; select 2' },
        node: 'rows',
        path: 'dag.nodes[0].config.query',
      },
    ];
  };

  it('is refused at save with a 422 naming the node, and refused at run time when stored before that check', async () => {
    const wh = await warehouse(attacker, 'wh/attacker.duckdb', 'harmless');
    for (const attack of attacks()) {
      const saved = await call<ProblemDocument>(stack, 'POST', '/v2/pipelines', {
        key: attacker.key,
        body: { name: uniqueName('steal'), dag: pipelineOf(wh, attack.field) },
      });
      expect([attack.name, saved.status]).toEqual([attack.name, 422]);
      expect(saved.body.errors).toEqual([
        {
          path: attack.path,
          code: 'sql_not_allowed',
          message: expect.stringContaining(`node "${attack.node}": the SQL `),
        },
      ]);

      const id = await storedBeforeTheCheck(attacker, pipelineOf(wh, {}), pipelineOf(wh, attack.field));
      const run = await runPipeline(attacker, id);
      expect([attack.name, run.status]).toEqual([attack.name, 'failed']);
      expect(run.error).toMatchObject({
        node_id: attack.node,
        code: 'config_error',
        message: expect.stringMatching(
          new RegExp(`^node "${attack.node}" failed: (rules\\[0\\] \\(a\\): )?the (SQL|query) `),
        ),
      });
      expect(nodeOf(run, attack.node)).toMatchObject({
        status: 'failed',
        attempts: 1,
        error: { code: 'config_error' },
      });
      expect(JSON.stringify(run)).not.toContain(MARKER);
      expect(await filesBeside()).toEqual(['local.env']);
    }
  });

  // A sql node leaves no table; its id, read as one, named DuckDB's own view of that name (the settings, with the
  // server's folders), and a sink exported it.
  it("never reads a sql node's id as a table: one named after DuckDB's settings view is refused at save, and at trigger when stored before", async () => {
    const wh = await warehouse(attacker, 'wh/attacker-settings.duckdb', 'harmless');
    const dag = {
      nodes: [
        { id: 'pg_settings', type: 'sql', config: { connector_id: wh, sql: 'select 1' } },
        { id: 'loot', type: 'sink', config: { connector_id: wh, table: 'loot', mode: 'overwrite' } },
      ],
      edges: [{ from: 'pg_settings', to: 'loot' }],
    };
    const saved = await call<{ id: string; status: string }>(stack, 'POST', '/v2/pipelines', {
      key: attacker.key,
      body: { name: uniqueName('settings'), dag },
    });
    expect([saved.status, saved.body.status]).toEqual([201, 'invalid']);
    const validation = await call<{ errors: { code: string; node_id?: string; message: string }[] }>(
      stack,
      'POST',
      `/v2/pipelines/${saved.body.id}/validate`,
      { key: attacker.key },
    );
    expect(validation.body.errors).toEqual([
      expect.objectContaining({
        code: 'missing_input',
        node_id: 'loot',
        message: expect.stringContaining('only orders'),
      }),
    ]);

    // Stored before the check: the trigger validates the pipeline again and refuses it (the executor, reading only its
    // inputs that leave a table, would fail the sink: apps/executor/test/sql-escapes.test.ts).
    const id = await storedBeforeTheCheck(attacker, pipelineOf(wh, {}), dag);
    const job = await createAs(attacker, '/v2/jobs', { name: uniqueName('job'), pipeline_id: id });
    const refused = await call<ProblemDocument>(stack, 'POST', `/v2/jobs/${job.id}/run`, { key: attacker.key });
    expect([refused.status, refused.body.code]).toEqual([409, 'pipeline_invalid']);
    expect(refused.body.detail).toContain('only orders');
    const runs = await call<Page<Run>>(stack, 'GET', `/v2/jobs/${job.id}/runs`, { key: attacker.key });
    expect(runs.body.data).toEqual([]);
  });

  it("refuses a duckdb sql node's COPY, ATTACH, SET and second statement at save, and a file reader or COPY of a table at run time", async () => {
    const wh = await warehouse(attacker, 'wh/statements.duckdb', 'harmless');
    const sqlNode = (sql: string) => ({
      nodes: [{ id: 'exec', type: 'sql', config: { connector_id: wh, sql } }],
      edges: [],
    });
    for (const sql of [
      `copy (select 42 as a) to '${join(secrets, 'copied.csv')}'`,
      `attach '${join(secrets, 'x.db')}' as x`,
      'set enable_external_access = true',
      'select 1; select 2',
    ]) {
      const saved = await call<ProblemDocument>(stack, 'POST', '/v2/pipelines', {
        key: attacker.key,
        body: { name: uniqueName('steal'), dag: sqlNode(sql) },
      });
      expect([sql, saved.status, saved.body.errors]).toEqual([
        sql,
        422,
        [expect.objectContaining({ path: 'dag.nodes[0].config.sql', code: 'sql_not_allowed' })],
      ]);
    }
    // Without the table the save-time check cannot prepare these; the run can, and refuses them.
    for (const sql of [
      `insert into t select content from read_text('${secretFile}')`,
      `copy t to '${join(secrets, 'copied.csv')}'`,
    ]) {
      const run = await runDag(attacker, sqlNode(sql));
      expect([sql, run.status]).toEqual([sql, 'failed']);
      expect(run.error).toMatchObject({
        node_id: 'exec',
        code: 'config_error',
        message: expect.stringMatching(
          /^node "exec" failed: the statement (may not read or write files|is a copy statement, which is not allowed)/,
        ),
      });
      expect(JSON.stringify(run)).not.toContain(MARKER);
      expect(await filesBeside()).toEqual(['local.env']);
    }
    // Nothing was read into the table.
    const instance = await duckdb.DuckDBInstance.create(join(dataRoot, attacker.tenantId, 'wh/statements.duckdb'), {
      access_mode: 'READ_ONLY',
    });
    const connection = await instance.connect();
    try {
      expect((await connection.runAndReadAll('select content from t')).getRows()).toEqual([['harmless']]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});

describe('tenants and the data root', () => {
  it("keeps each tenant's duckdb file in its own folder: the same relative path is another database", async () => {
    await warehouse(attacker, 'shared/warehouse.duckdb', 'attacker data');
    const theirs = await createAs(neighbour, '/v2/connectors', {
      name: uniqueName('wh'),
      type: 'duckdb',
      config: { path: 'shared/warehouse.duckdb' },
    });
    const tested = await call<ConnectionTestResult>(stack, 'POST', `/v2/connectors/${theirs.id}/test`, {
      key: neighbour.key,
    });
    expect(tested.body).toMatchObject({
      ok: false,
      error_class: 'config_error',
      message: 'folder of "shared/warehouse.duckdb" does not exist',
    });
    const run = await runDag(neighbour, {
      nodes: [{ id: 'peek', type: 'source', config: { connector_id: theirs.id, table: 't' } }],
      edges: [],
    });
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({
      node_id: 'peek',
      code: 'config_error',
      message: 'node "peek" failed: database file "shared/warehouse.duckdb" does not exist',
    });
    expect(JSON.stringify(run)).not.toContain('attacker data');
    expect(await readdir(join(dataRoot, attacker.tenantId, 'shared'))).toEqual(['warehouse.duckdb']);
    expect(await readdir(dataRoot)).not.toContain('shared');
  });
});
