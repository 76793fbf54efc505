import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import type { Pipeline, WhoAmI } from '@conduit/contracts';
import { startStack, type Stack } from '@conduit/testing';
import { artifactsDir, launchChromium, screenshot } from './support/browser.js';
import { call, expectProblem } from './support/client.js';
import { create, createPipelineAndJob, mintToken, uniqueName } from './support/helpers.js';
import { createTargetDatabase, type TargetDatabase } from './support/target-database.js';

// The web console (apps/console) as a user meets it: served by the gateway at `/`, in Debian's Chromium, against
// every service running as its own process. Each page's screenshot lands in e2e/artifacts/console/.
let stack: Stack;
let targetDb: TargetDatabase;
let browser: Browser;
let page: Page;
let projectName: string;
let good: { pipelineId: string; jobId: string; name: string };
let bad: { jobId: string };
let scheduled: { jobId: string };
/** Receives the webhook's deliveries (204 to each). */
let receiver: Server;
const shots = artifactsDir('console');
/** Get Pipeline's answer, its DAG's nodes typed (the contract types a DAG as any JSON object). */
type StoredPipeline = Pipeline & { dag: { nodes: unknown[] } };

beforeAll(async () => {
  targetDb = await createTargetDatabase();
  const db = new pg.Client({ connectionString: targetDb.url });
  await db.connect();
  await db.query(`create table orders (id integer primary key, amount numeric(10,2) not null)`);
  await db.query(`insert into orders select i, i * 10 from generate_series(1, 50) as i`);
  await db.query(`create table big_orders (id integer primary key, amount numeric(10,2) not null)`);
  await db.end();

  receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // The console polls its run every second; the rate limit has its own tests. The webhook receiver is local http.
  stack = await startStack({
    CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
    RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  projectName = uniqueName('sales');
  const project = await create(stack, '/v2/projects', { name: projectName, description: 'Orders, end to end' });
  const connector = await create(stack, '/v2/connectors', {
    name: uniqueName('pg'),
    type: 'postgres',
    config: targetDb.config(),
    project_id: project.id,
  });
  const source = (config: Record<string, unknown>) => ({
    id: 'orders',
    type: 'source',
    config: { connector_id: connector.id, ...config },
  });
  const goodName = uniqueName('big-orders');
  const pipeline = await create(stack, '/v2/pipelines', {
    name: goodName,
    project_id: project.id,
    dag: {
      nodes: [
        source({ table: 'orders' }),
        {
          id: 'big',
          type: 'transform',
          config: { sql: 'select id, amount from orders where cast(amount as double) >= 200' },
        },
        { id: 'load', type: 'sink', config: { connector_id: connector.id, table: 'big_orders', mode: 'append' } },
      ],
      edges: [
        { from: 'orders', to: 'big' },
        { from: 'big', to: 'load' },
      ],
    },
  });
  const job = await create(stack, '/v2/jobs', { name: uniqueName('nightly'), pipeline_id: pipeline.id });
  good = { pipelineId: pipeline.id, jobId: job.id, name: goodName };
  // Fires at 03:00 Paris time on the first of each month: never during the suite.
  const monthly = await create(stack, '/v2/jobs', {
    name: uniqueName('monthly'),
    pipeline_id: pipeline.id,
    schedule: '0 3 1 * *',
    timezone: 'Europe/Paris',
  });
  scheduled = { jobId: monthly.id };
  await create(stack, '/v2/webhooks', {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
    events: ['job.failed', 'job.completed'],
    secret: 'whsec_' + Buffer.from('a console e2e secret of 32 bytes').toString('base64'),
    description: 'console e2e receiver',
  });
  bad = await createPipelineAndJob(stack, {
    nodes: [
      source({ query: 'select 1 as id from no_such_table' }),
      { id: 'load', type: 'sink', config: { connector_id: connector.id, table: 'big_orders', mode: 'append' } },
    ],
    edges: [{ from: 'orders', to: 'load' }],
  });

  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await targetDb?.drop();
});

it("signs in with an API key kept in session storage, never in the URL, and shows the key's tenant", async () => {
  await page.goto(`${stack.baseUrl}/`);
  await page.getByLabel('API key').waitFor();
  await screenshot(page, shots, '01-sign-in');
  await page.getByLabel('API key').fill(stack.bootstrapKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: projectName }).waitFor();
  // The bootstrap tenant is named "Operators" (apps/gateway ensureBootstrap).
  expect(await page.getByTestId('tenant').textContent()).toBe('Operators');
  expect(page.url()).toBe(`${stack.baseUrl}/`);
  expect(await page.evaluate<string | null>("sessionStorage.getItem('conduit.apiKey')")).toBe(stack.bootstrapKey);
  await screenshot(page, shots, '02-projects');
});

it("opens a project's pipeline and draws its DAG by execution level", async () => {
  await page.getByRole('link', { name: projectName }).click();
  await page.getByRole('link', { name: good.name }).waitFor();
  await screenshot(page, shots, '03-project');
  await page.getByRole('link', { name: good.name }).click();
  await page.locator('.react-flow__node').nth(2).waitFor();
  expect(page.url()).toBe(`${stack.baseUrl}/pipelines/${good.pipelineId}`);
  const card = async (id: string) => {
    const node = page.locator(`[data-node-id="${id}"]`);
    return [
      /type-(\w+)/.exec((await node.getAttribute('class')) ?? '')?.[1],
      await node.locator('.dag-node-level').textContent(),
    ];
  };
  expect([await card('orders'), await card('big'), await card('load')]).toEqual([
    ['source', 'level 1'],
    ['transform', 'level 2'],
    ['sink', 'level 3'],
  ]);
  // Left to right by level.
  const x = async (id: string) => (await page.locator(`[data-node-id="${id}"]`).boundingBox())!.x;
  expect(await x('orders')).toBeLessThan(await x('big'));
  expect(await x('big')).toBeLessThan(await x('load'));
  await screenshot(page, shots, '04-pipeline');
});

it('triggers a run and watches it succeed with live logs, every node green', async () => {
  await page.getByRole('link', { name: /^nightly-/ }).click();
  await page.getByRole('button', { name: 'Trigger run' }).click();
  await page.waitForURL(new RegExp(`/jobs/${good.jobId}/runs/run_`));
  await page.getByTestId('run-status').filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
  await page.locator('.dag-node.state-succeeded').nth(2).waitFor();
  await page.getByText('run ended: log complete').waitFor({ timeout: 15_000 });
  expect(await page.getByRole('log', { name: 'Run log' }).getByRole('listitem').count()).toBeGreaterThan(0);
  // The timeline: one row per node, each with its rows in and out (orders of 200 and more: ids 20 to 50).
  const timeline = page.getByRole('table', { name: /Node timeline/ });
  expect(await timeline.locator('tbody tr').count()).toBe(3);
  const load = timeline.locator('[data-timeline-node="load"] td');
  expect([await load.nth(3).textContent(), await load.nth(4).textContent()]).toEqual(['31', '31']);
  await screenshot(page, shots, '05-run-succeeded');
  await page.goto(`${stack.baseUrl}/jobs/${good.jobId}`);
  await page.getByRole('cell', { name: 'succeeded' }).first().waitFor();
  await screenshot(page, shots, '06-job-runs');
});

it('shows a failed run with the error on the node that failed', async () => {
  // A deep link in the same tab: the gateway answers the client route with the console, the session is kept.
  await page.goto(`${stack.baseUrl}/jobs/${bad.jobId}`);
  await page.getByRole('button', { name: 'Trigger run' }).click();
  await page.getByTestId('run-status').filter({ hasText: 'failed' }).waitFor({ timeout: 60_000 });
  const failed = page.locator('[data-node-id="orders"]');
  await failed.locator('text=no_such_table').waitFor();
  expect(await failed.getAttribute('class')).toContain('state-failed');
  expect(await page.locator('[data-node-id="load"]').getAttribute('class')).toContain('state-skipped');
  expect(await page.getByRole('alert').first().textContent()).toContain('Node orders failed');
  await screenshot(page, shots, '07-run-failed');
  // A phone: loaded at its width (the graph fits the view it opens in); a reload keeps the tab's session.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.getByText('run ended: log complete').waitFor();
  await page.locator('.dag-node.state-failed').waitFor();
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
  await screenshot(page, shots, '08-run-failed-narrow');
  await page.setViewportSize({ width: 1280, height: 900 });
});

it('builds a pipeline: a draft error on its node without saving, then valid with its levels, saved as version 2', async () => {
  await page.goto(`${stack.baseUrl}/`);
  await page.getByRole('link', { name: projectName }).click();
  await page.getByLabel('Pipeline name (required)').fill(uniqueName('built'));
  await page.getByRole('button', { name: 'Create pipeline' }).click();
  await page.waitForURL(/\/pipelines\/pln_/);
  const pipelineId = new URL(page.url()).pathname.split('/').pop()!;
  const editor = page.getByLabel('The DAG as JSON');
  // The starter DAG reads from the project's connector into it; a transform goes between, with a sink mode to fix.
  type Node = { id: string; type: string; config: Record<string, unknown> };
  const starter = JSON.parse(await editor.inputValue()) as { nodes: [Node, Node] };
  const [source, sink] = starter.nodes;
  const withMode = (mode: string) => ({
    nodes: [
      source,
      { id: 'big', type: 'transform', config: { sql: 'select id, amount from source where amount >= 200' } },
      { ...sink, config: { ...sink.config, mode } },
    ],
    edges: [
      { from: source.id, to: 'big' },
      { from: 'big', to: sink.id },
    ],
  });
  await editor.fill(JSON.stringify(withMode('sideways'), null, 2));
  const sinkCard = page.locator(`[data-node-id="${sink.id}"]`);
  await sinkCard.locator('.dag-node-issue').waitFor();
  expect(await sinkCard.getAttribute('class')).toContain('invalid');
  expect(await page.locator(`[data-node-id="${source.id}"]`).getAttribute('class')).not.toContain('invalid');
  const problems = page.getByRole('list', { name: 'Problems with the draft' });
  expect(await problems.getByRole('listitem').allTextContents()).toEqual([
    expect.stringMatching(/^nodes\[2\]\.config\.mode /),
  ]);
  // Validated, not saved.
  const stored = (await call<StoredPipeline>(stack, 'GET', `/v2/pipelines/${pipelineId}`)).body;
  expect([stored.version, stored.dag.nodes.length]).toEqual([1, 2]);
  await screenshot(page, shots, '08a-draft-invalid');

  await editor.fill(JSON.stringify(withMode('append'), null, 2));
  const levels = page.getByRole('list', { name: 'Execution levels of the draft' });
  await levels.waitFor();
  expect(await levels.getByRole('listitem').allTextContents()).toEqual([
    `Level 1: ${source.id}`,
    'Level 2: big',
    `Level 3: ${sink.id}`,
  ]);
  expect(await sinkCard.locator('.dag-node-level').textContent()).toBe('level 3');
  expect(await sinkCard.getAttribute('class')).not.toContain('invalid');
  await screenshot(page, shots, '08b-draft-valid');
  await page.getByRole('button', { name: 'Save and validate' }).click();
  await page.getByText('Saved version 2: valid.').waitFor();
  const saved = (await call<StoredPipeline>(stack, 'GET', `/v2/pipelines/${pipelineId}`)).body;
  expect([saved.version, saved.status, saved.dag.nodes.length]).toEqual([2, 'valid', 3]);
  await screenshot(page, shots, '08c-pipeline-saved');
});

it("creates a postgres connector from its type's form and tests it, each check with its latency", async () => {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Connectors' }).click();
  await page.getByRole('heading', { name: 'database' }).waitFor();
  await screenshot(page, shots, '09-connectors');
  await page.getByRole('link', { name: 'New connector' }).click();
  const name = uniqueName('warehouse');
  const config = targetDb.config();
  await page.getByLabel('Name (required)').fill(name);
  await page.getByLabel('Type (required)').selectOption('postgres');
  await page.getByLabel('host (required)').fill(String(config.host));
  await page.getByLabel('port', { exact: true }).fill(String(config.port));
  await page.getByLabel('database (required)').fill(String(config.database));
  await page.getByLabel('user (required)').fill(String(config.user));
  expect(await page.getByLabel('password', { exact: true }).getAttribute('type')).toBe('password');
  await page.getByRole('button', { name: 'Create connector' }).click();
  await page.waitForURL(/\/connectors\/con_/);
  await page.getByRole('button', { name: 'Test connection' }).click();
  const result = page.getByRole('region', { name: /Connection works/ });
  await result.waitFor({ timeout: 15_000 });
  const checks = result.locator('tbody tr');
  expect(await checks.count()).toBeGreaterThan(0);
  expect(await checks.first().locator('td').nth(1).textContent()).toMatch(/^\d+(\.\d)? (ms|s)$/);
  await screenshot(page, shots, '10-connector-tested');
});

it("shows a job's schedule, time zone and next five fire times", async () => {
  await page.goto(`${stack.baseUrl}/jobs/${scheduled.jobId}`);
  const times = page.getByRole('table', { name: 'Next five fire times' }).locator('tbody time');
  await times.first().waitFor();
  const fires = await Promise.all((await times.all()).map((time) => time.getAttribute('datetime')));
  expect(fires).toHaveLength(5);
  // 03:00 in Paris on the first of the month: 02:00 UTC in winter, 01:00 UTC in summer.
  for (const at of fires) expect(at).toMatch(/^\d{4}-\d\d-01T0[12]:00:00\.000Z$/);
  await screenshot(page, shots, '11-job-schedule');
});

it('charts runs over time and lists the open alert of the failed job', async () => {
  await page.getByRole('link', { name: 'Monitoring' }).click();
  await page.getByLabel('The window at a glance').waitFor();
  // Each chart is drawn on a canvas (uPlot) and carries its numbers as a table.
  await page.locator('.chart-canvas canvas').nth(1).waitFor();
  await page
    .getByRole('table', { name: /Per job/ })
    .getByRole('row', { name: /nightly-/ })
    .waitFor();
  // The monitoring service opens the alert from the run's event: refresh until it is listed.
  const failedRunLink = page.getByRole('region', { name: 'Open alerts' }).getByRole('link', { name: 'the failed run' });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const listed = await failedRunLink.waitFor({ timeout: 2_000 }).then(
      () => true,
      () => false,
    );
    if (listed) break;
    if (Date.now() > deadline) throw new Error('no open alert for the failed run');
    await page.getByRole('button', { name: 'Refresh' }).click();
  }
  await screenshot(page, shots, '12-monitoring');
});

it("shows a webhook's deliveries and sends it a test event", async () => {
  await page.getByRole('link', { name: 'Webhooks' }).click();
  const card = page.getByRole('listitem').filter({ hasText: 'console e2e receiver' });
  await card.getByRole('button', { name: 'Send test event' }).click();
  await card.getByText(/^Test event sent \(ping/).waitFor();
  await card.getByRole('rowheader', { name: 'ping' }).waitFor();
  await screenshot(page, shots, '13-webhooks');
  // A phone: the new pages fit its width too.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ['/monitoring', `/jobs/${scheduled.jobId}`, '/connectors/new']) {
    await page.goto(`${stack.baseUrl}${path}`);
    await page.locator('main h1').waitFor();
    await page
      .getByRole('status')
      .filter({ hasText: /^Loading/ })
      .waitFor({ state: 'detached' });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
  }
  await screenshot(page, shots, '14-new-connector-narrow');
  await page.setViewportSize({ width: 1280, height: 900 });
});

it('names the tenant and credential of a request (GET /v2/whoami), for API keys and bearer tokens', async () => {
  const byKey = await call<WhoAmI>(stack, 'GET', '/v2/whoami');
  expect([byKey.status, byKey.body.tenant.name, byKey.body.credential.kind]).toEqual([200, 'Operators', 'api_key']);
  expect(byKey.body.credential.id).toMatch(/^key_/);
  const token = await mintToken(stack, { tenant_id: 'tnt_tokens_only', scope: 'read' });
  const byToken = await call<WhoAmI>(stack, 'GET', '/v2/whoami', { bearer: token });
  expect(byToken.body).toEqual({
    tenant: { id: 'tnt_tokens_only', name: null },
    credential: { kind: 'jwt', id: expect.stringMatching(/^jwt:tnt_tokens_only/) as unknown, scopes: ['read'] },
  });
  expectProblem(await call(stack, 'GET', '/v2/whoami', { key: null }), 401, 'unauthenticated');
});

it('leaves the API, its docs and probes as they were', async () => {
  expectProblem(await call(stack, 'GET', '/v2/no-such-route'), 404, 'not_found');
  expectProblem(await call(stack, 'GET', `/v2/jobs/${good.jobId}/run`), 405, 'method_not_allowed');
  expectProblem(await call(stack, 'GET', '/assets/no-such-file.js'), 404, 'not_found');
  expect((await call(stack, 'GET', '/v2/projects?limit=1')).status).toBe(200);
  expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(200);
  const docs = await fetch(`${stack.baseUrl}/docs`);
  expect([docs.status, await docs.text()]).toEqual([200, expect.stringContaining('swagger')]);
  // A client route is the console's page for a browser, and the API's 404 problem for an API client.
  const asBrowser = { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } };
  const route = await fetch(`${stack.baseUrl}/pipelines/${good.pipelineId}`, asBrowser);
  expect([route.status, route.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
  expectProblem(await call(stack, 'GET', `/pipelines/${good.pipelineId}`), 404, 'not_found');
  // The page is never framable or cached, by whichever path it is asked for.
  for (const path of ['/', '/index.html', `/pipelines/${good.pipelineId}`]) {
    const page = await fetch(`${stack.baseUrl}${path}`, asBrowser);
    expect([path, page.status, page.headers.get('cache-control')]).toEqual([path, 200, 'no-cache']);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  }
});

it('says how to build the console when a gateway has none', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'console-unbuilt-'));
  try {
    const gateway = await stack.startService('gateway', { CONSOLE_DIR: empty });
    const res = await fetch(`http://127.0.0.1:${gateway.port}/`);
    expect([res.status, await res.text()]).toEqual([
      404,
      expect.stringContaining('turbo run build --filter=@conduit/console'),
    ]);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

it('loads the graph and chart libraries only with the pages that draw them, not to sign in or list projects', async () => {
  const fresh = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const scripts: string[] = [];
  fresh.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  try {
    await fresh.goto(`${stack.baseUrl}/`);
    await fresh.getByLabel('API key').fill(stack.bootstrapKey);
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.getByRole('link', { name: projectName }).waitFor();
    // One script, the entry: React Flow, dagre and uPlot are in chunks of their own.
    expect(scripts).toEqual([expect.stringMatching(/^\/assets\/index-[\w-]+\.js$/)]);
    await fresh.getByRole('link', { name: 'Monitoring' }).click();
    await fresh.getByRole('heading', { level: 1, name: 'Monitoring' }).waitFor();
    expect(scripts.length).toBeGreaterThan(1);
  } finally {
    await fresh.close();
  }
});
