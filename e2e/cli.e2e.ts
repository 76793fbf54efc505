// The `conduit` CLI end to end (issue 19 item 3): spawned CLI processes against the stack, from login through
// pipelines as code (validate, plan, apply twice) to runs followed live, on a pipe and on a pseudo-terminal.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startStack, type Stack } from '@conduit/testing';
import { conduit, conduitOnTty, type CliResult } from './support/cli.js';
import { createTargetDatabase, type TargetDatabase } from './support/target-database.js';

const EXAMPLE = resolve(dirname(fileURLToPath(import.meta.url)), '../examples/conduit.yaml');
// ESC built from its code: a control character in a regex literal reads as a typo to the linter.
const ESC = String.fromCharCode(27);
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`);

let stack: Stack;
let target: TargetDatabase;
let home: string;
let env: Record<string, string>;

const json = <T = Record<string, unknown>>(result: CliResult): T => {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.code}): ${result.stdout}\nstderr: ${result.stderr}`);
  }
};
const ok = (result: CliResult): CliResult => {
  if (result.code !== 0) throw new Error(`exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return result;
};
/** Writes a copy of the example, changed by `edit`, as `name` in the suite's home; answers its path. */
const exampleEdited = (name: string, edit: (text: string) => string): string => {
  const file = join(home, name);
  writeFileSync(file, edit(readFileSync(EXAMPLE, 'utf8')));
  return file;
};
/** The 1-based line of the first line of `file` holding `text`. */
const lineOf = (file: string, text: string): number =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;

beforeAll(async () => {
  target = await createTargetDatabase();
  // Following runs polls; the rate limit has its own tests.
  stack = await startStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_PER_MINUTE: '100000' });
  home = mkdtempSync(join(tmpdir(), 'conduit-cli-'));
  const pgConfig = target.config();
  env = {
    HOME: home,
    CONDUIT_CONFIG: join(home, 'conduit', 'config.json'),
    CONDUIT_EXAMPLE_PG_HOST: String(pgConfig.host),
    CONDUIT_EXAMPLE_PG_DATABASE: String(pgConfig.database),
    CONDUIT_EXAMPLE_PG_USER: String(pgConfig.user),
    CONDUIT_EXAMPLE_PG_PASSWORD: 'not-needed-with-trust',
  };
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  await target?.drop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('login and whoami', () => {
  it('refuses a wrong key with the problem, then saves a good one in a 0600 file', async () => {
    const bad = await conduit(['login', '--url', stack.baseUrl, '--api-key-stdin'], { env, input: 'cnd_wrong\n' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Error: .*\(401 unauthenticated\)/);
    expect(() => statSync(env.CONDUIT_CONFIG!)).toThrow();

    ok(await conduit(['login', '--url', stack.baseUrl, '--api-key-stdin'], { env, input: `${stack.bootstrapKey}\n` }));
    expect(statSync(env.CONDUIT_CONFIG!).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(env.CONDUIT_CONFIG!, 'utf8'));
    expect(saved).toEqual({
      current_profile: 'default',
      profiles: { default: { url: stack.baseUrl, api_key: stack.bootstrapKey } },
    });

    const who = json(ok(await conduit(['whoami', '--output', 'json'], { env })));
    expect(who).toMatchObject({
      profile: 'default',
      url: stack.baseUrl,
      authenticated: true,
      credential_source: 'profile "default"',
    });
    expect(JSON.stringify(who)).not.toContain(stack.bootstrapKey);
  });

  it('takes CONDUIT_URL and CONDUIT_API_KEY from the environment over the profile', async () => {
    const who = json(
      ok(
        await conduit(['-o', 'json', 'whoami'], {
          env: {
            ...env,
            CONDUIT_CONFIG: join(home, 'none.json'),
            CONDUIT_URL: stack.baseUrl,
            CONDUIT_API_KEY: stack.bootstrapKey,
          },
        }),
      ),
    );
    expect(who).toMatchObject({ url: stack.baseUrl, credential_source: 'CONDUIT_API_KEY', url_source: 'CONDUIT_URL' });
  });
});

describe('pipelines as code', () => {
  it('validates the example offline, and names the line of each error in a broken file', async () => {
    const valid = ok(await conduit(['validate', '-f', EXAMPLE], { env: { HOME: home } }));
    expect(valid.stdout).toMatch(/is valid/);
    expect(valid.stderr).toMatch(/CONDUIT_EXAMPLE_PG_HOST is not set/); // a warning offline, not an error

    const broken = exampleEdited('broken.yaml', (text) =>
      text
        .replace('mode: overwrite', 'mode: sideways')
        .replace('{ from: orders, to: big }', '{ from: orders, to: nowhere }'),
    );
    const result = await conduit(['validate', '-f', broken], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${broken}:${lineOf(broken, 'mode: sideways')}:`);
    expect(result.stderr).toMatch(/config\.mode must be one of "append", "overwrite", "upsert" \(got "sideways"\)/);
    expect(result.stderr).toContain(`${broken}:${lineOf(broken, 'to: nowhere')}:`);
    const asJson = json<{ valid: boolean; issues: { line: number; code: string }[] }>(
      await conduit(['validate', '-f', broken, '-o', 'json'], { env }),
    );
    expect(asJson.valid).toBe(false);
    expect(asJson.issues.filter((i) => i.code === 'invalid_node_config').map((i) => i.line)).toEqual([
      lineOf(broken, 'mode: sideways'),
    ]);
  });

  it('plans four creations, applies them, and a second apply changes nothing', async () => {
    const plan = json<{ summary: unknown; steps: { kind: string; action: string }[] }>(
      ok(await conduit(['plan', '-f', EXAMPLE, '-o', 'json'], { env })),
    );
    expect(plan.summary).toEqual({ create: 4, update: 0, unchanged: 0 });
    expect(plan.steps.map((s) => s.kind)).toEqual(['project', 'connector', 'pipeline', 'job']);

    const first = ok(await conduit(['apply', '-f', EXAMPLE], { env }));
    expect(first.stdout).toMatch(/\+ pipeline\s+conduit-example\/big-orders\s+created/);
    expect(first.stdout).toMatch(/Applied: 4 created, 0 updated, 0 unchanged\./);

    const second = json<{ summary: unknown; steps: { action: string; id: string }[] }>(
      ok(await conduit(['apply', '-f', EXAMPLE, '-o', 'json'], { env })),
    );
    expect(second.summary).toEqual({ create: 0, update: 0, unchanged: 4 });
    expect(second.steps.every((s) => /^(prj|con|pln|job)_/.test(s.id))).toBe(true);
    const again = ok(await conduit(['plan', '-f', EXAMPLE], { env }));
    expect(again.stdout).toMatch(/Plan: 0 to create, 0 to update, 4 unchanged\./);
  });

  it('plans an update naming the fields that changed', async () => {
    const edited = exampleEdited('edited.yaml', (text) =>
      text.replace('where amount > 500', 'where amount > 900').replace('timezone: Europe/Paris', 'timezone: UTC'),
    );
    const plan = ok(await conduit(['plan', '-f', edited], { env }));
    expect(plan.stdout).toMatch(/~ pipeline\s+conduit-example\/big-orders\s+update \(dag\)/);
    expect(plan.stdout).toMatch(/~ job\s+conduit-example\/big-orders-nightly\s+update \(timezone\)/);
    expect(plan.stdout).toMatch(/Plan: 0 to create, 2 to update, 2 unchanged\./);
  });

  it("shows the API's problem with each field at fault when apply is refused", async () => {
    const badCron = exampleEdited('bad-cron.yaml', (text) =>
      text.replace('"0 2 * * *"', '"0 2 * * * *"').replace('big-orders-nightly', 'big-orders-hourly'),
    );
    const result = await conduit(['apply', '-f', badCron], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Error: .* \(422 [a-z_]+\): /);
    expect(result.stderr).toMatch(/ {2}- schedule: .+ \[invalid_cron\]/);
    const asJson = json<{ error: { status: number; errors: { path: string }[] } }>(
      await conduit(['apply', '-f', badCron, '-o', 'json'], { env }),
    );
    expect(asJson.error).toMatchObject({ status: 422, errors: [expect.objectContaining({ path: 'schedule' })] });
  });
});

describe('runs', () => {
  it('run --follow shows the nodes and the logs and exits 0 when the run succeeds', async () => {
    const result = ok(await conduit(['run', 'big-orders-nightly', '--follow'], { env, timeoutMs: 90_000 }));
    for (const node of ['seed', 'orders', 'big', 'report'])
      expect(result.stdout).toMatch(new RegExp(`node ${node}: succeeded, \\d+(\\.\\d)? m?s`));
    expect(result.stdout).toMatch(/node big: succeeded, .*rows 100 in, 50 out/);
    expect(result.stdout).toMatch(/\d\d:\d\d:\d\d\.\d{3} info .*\[orders\] /);
    expect(result.stdout).toMatch(/run run_\w+ succeeded in .*: \d+ rows read, 50 written/);
    expect(result.stdout).not.toMatch(SGR);
    const db = new pg.Client({ connectionString: target.url });
    await db.connect();
    try {
      expect((await db.query('select count(*)::int as n from demo_big_orders')).rows[0]).toEqual({ n: 50 });
    } finally {
      await db.end();
    }
  });

  it('run --follow exits 1 when the run fails, and --output json answers the failed run', async () => {
    const failing = exampleEdited('failing.yaml', (text) =>
      text
        .replace(/conduit-example/g, 'conduit-failing')
        .replace('example-warehouse', 'failing-warehouse')
        .replace(/connector: example-warehouse/g, 'connector: failing-warehouse')
        .replace('table: demo_orders', 'table: no_such_table')
        .replace(/big-orders/g, 'missing-table'),
    );
    ok(await conduit(['apply', '-f', failing], { env }));
    const result = await conduit(['run', 'missing-table-nightly', '--follow', '-o', 'json'], {
      env,
      timeoutMs: 90_000,
    });
    expect(result.code).toBe(1);
    const run = json<{ status: string; nodes: { id: string; status: string }[] }>(result);
    expect(run.status).toBe('failed');
    expect(run.nodes.find((n) => n.id === 'orders')?.status).toBe('failed');

    const text = await conduit(['run', 'missing-table-nightly', '--follow'], { env, timeoutMs: 90_000 });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/node orders: failed/);
    expect(text.stdout).toMatch(/run run_\w+ failed/);
  });

  it("lists runs, prints a run's logs, and explains why a finished run cannot be canceled", async () => {
    const runs = json<{ data: { id: string; status: string; job_id: string }[] }>(
      ok(await conduit(['runs', '--job', 'missing-table-nightly', '-o', 'json'], { env })),
    );
    expect(runs.data.map((r) => r.status)).toEqual(['failed', 'failed']);
    const all = ok(await conduit(['runs'], { env }));
    expect(all.stdout).toMatch(/^RUN\s+JOB\s+STATUS/);
    expect(all.stdout.match(/run_\w+/g)).toHaveLength(3);

    const runId = runs.data[0]!.id;
    const logs = ok(await conduit(['logs', runId], { env }));
    expect(logs.stdout).toMatch(/error .*\[orders\] /);
    const lines = ok(await conduit(['logs', runId, '--follow', '-o', 'json'], { env }))
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number });
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_l, i) => i + 1));

    const cancel = await conduit(['cancel', runId], { env });
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toMatch(/Error: .*\(409 run_finished\)/);

    const retried = json<{ id: string; trigger: string; job_id: string }>(
      ok(await conduit(['retry', runId, '-o', 'json'], { env })),
    );
    expect(retried).toMatchObject({ trigger: 'retry', job_id: runs.data[0]!.job_id });
    expect(retried.id).not.toBe(runId);
  });

  it('tests a connector by name', async () => {
    const result = ok(await conduit(['connectors', 'test', 'example-warehouse'], { env }));
    expect(result.stdout).toMatch(/example-warehouse: ok in \d+ ms/);
    const asJson = json<{ ok: boolean }>(
      ok(await conduit(['connectors', 'test', 'example-warehouse', '-o', 'json'], { env })),
    );
    expect(asJson.ok).toBe(true);
  });
});

describe('on a terminal', () => {
  it("draws the node states with colours and a spinner, and still exits by the run's end", async () => {
    const result = await conduitOnTty(['run', 'big-orders-nightly', '--follow'], { env, timeoutMs: 90_000 });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(SGR);
    expect(result.stdout).toMatch(/✔ report\s+succeeded/);
    expect(result.stdout).toMatch(new RegExp(`${ESC}\\[\\d+F${ESC}\\[J`)); // the block redrawn in place
  });

  it('keeps NO_COLOR: no colour, the live block still drawn', async () => {
    const result = await conduitOnTty(['run', 'big-orders-nightly', '--follow'], {
      env: { ...env, NO_COLOR: '1' },
      timeoutMs: 90_000,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(SGR);
    expect(result.stdout).toMatch(/✔ report\s+succeeded/);
  });
});
