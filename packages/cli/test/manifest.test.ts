// plan and apply against the stub API: names the tenant holds elsewhere, a failure midway, a missing file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { conduit, StubApi } from './stub-api.js';

const dir = mkdtempSync(join(tmpdir(), 'conduit-cli-manifest-'));
function manifest(project: string, extra = ''): string {
  const file = join(dir, `${project}.yaml`);
  writeFileSync(
    file,
    `projects:
  - name: ${project}
    connectors:
      - { name: warehouse, type: postgres, config: { host: h, database: d, user: u, password: pw } }
    pipelines:
      - name: copy
        dag:
          nodes:
            - { id: a, type: source, config: { connector: warehouse, table: t } }
            - { id: b, type: sink, config: { connector: warehouse, table: u, mode: append } }
          edges: [{ from: a, to: b }]
    jobs:
      - { name: nightly, pipeline: copy }
${extra}`,
  );
  return file;
}

let api: StubApi;
let env: Record<string, string>;
beforeEach(async () => {
  api = await new StubApi().start();
  env = { CONDUIT_URL: api.url, CONDUIT_API_KEY: 'cnd_test' };
});
afterEach(() => api.close());

describe('plan and apply of names held in another project', () => {
  beforeEach(async () => {
    // The example applied once, in project "first".
    expect((await conduit(['apply', '-f', manifest('first')], env)).code).toBe(0);
  });

  it('a second apply of the same file changes nothing', async () => {
    const writes = api.writes().length;
    const plan = await conduit(['plan', '-f', manifest('first')], env);
    expect(plan).toMatchObject({ code: 0 });
    expect(plan.stdout).toContain('0 to create, 0 to update, 4 unchanged');
    expect((await conduit(['apply', '-f', manifest('first')], env)).code).toBe(0);
    expect(api.writes()).toHaveLength(writes);
  });

  it('plan fails, naming each resource, its kind and the project holding the name', async () => {
    const plan = await conduit(['plan', '-f', manifest('second')], env);
    expect(plan.code).toBe(1);
    expect(plan.stdout).not.toContain('create');
    expect(plan.stderr).toContain(
      'connector "warehouse" of project "second": a connector of that name exists in project "first"',
    );
    expect(plan.stderr).toContain('job "nightly" of project "second": a job of that name exists in project "first"');
  });

  it('apply refuses before creating anything', async () => {
    const writes = api.writes().length;
    const apply = await conduit(['-o', 'json', 'apply', '-f', manifest('second')], env);
    expect(apply.code).toBe(1);
    expect(JSON.parse(apply.stdout)).toMatchObject({ error: { code: 'name_conflict', errors: expect.any(Array) } });
    expect(api.writes()).toHaveLength(writes);
    expect(api.store.projects.map((p) => p.name)).toEqual(['first']);
  });
});

it('validate refuses one connector name in two projects of a file (they are unique per tenant)', async () => {
  const file = manifest(
    'one',
    `  - name: two
    connectors:
      - { name: warehouse, type: postgres, config: { host: h, database: d, user: u, password: pw } }
`,
  );
  const result = await conduit(['validate', '-f', file]);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/:16:\d+: error: connector "warehouse" is also declared in project "one"/);
});

it("apply's failure midway names the resource it stopped at", async () => {
  api.overrides.set('POST /v2/pipelines', (res) => {
    res.writeHead(422, { 'content-type': 'application/problem+json' });
    res.end(
      JSON.stringify({
        type: '/p',
        title: 'Invalid',
        status: 422,
        code: 'validation_failed',
        detail: 'bad dag',
        instance: '/',
      }),
    );
  });
  const json = await conduit(['-o', 'json', 'apply', '-f', manifest('first')], env);
  expect(json.code).toBe(1);
  expect(JSON.parse(json.stdout)).toMatchObject({
    error: { code: 'validation_failed', detail: 'apply stopped at pipeline first/copy (create): bad dag' },
  });
  const text = await conduit(['apply', '-f', manifest('first')], env);
  expect(text.code).toBe(1);
  expect(text.stderr).toContain(
    'apply stopped at pipeline first/copy (create): Invalid (422 validation_failed): bad dag',
  );
});

it('a missing manifest is a usage mistake that names the flag', async () => {
  const result = await conduit(['plan', '-f', join(dir, 'nope.yaml')], env);
  expect(result).toMatchObject({
    code: 2,
    stderr: `Error: no manifest at ${join(dir, 'nope.yaml')} (use -f <file>)\n`,
  });
});
