import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { startStack, type Stack } from '@conduit/testing';
import { artifactsDir, launchChromium, screenshot } from './support/browser.js';
import { create, createPipelineAndJob, getRun, triggerRun, uniqueName, waitForRunEnd } from './support/helpers.js';
import { lowContrastText, tabThrough, unnamedControls } from './support/page-audit.js';
import { MARKED_ROWS_TABLE, markedRowsDag } from './support/run-executions.js';
import { createTargetDatabase, type TargetDatabase } from './support/target-database.js';

// The web console (issue 20) for everyone: each main page by keyboard alone, labelled, in readable contrast, on a
// phone's width; and the filters of a job's runs and of a run's live log, against the whole stack.
let stack: Stack;
let targetDb: TargetDatabase;
let browser: Browser;
let page: Page;
let ids: {
  project: string;
  connector: string;
  pipeline: string;
  job: string;
  run: string;
  slowJob: string;
  decidedJob: string;
  decidedRun: string;
};
/** An OpenAI-compatible chat endpoint (an outside service, so a local stand-in) that always picks `big`, 87 % sure. */
let llm: Server;
const shots = artifactsDir('console');

beforeAll(async () => {
  targetDb = await createTargetDatabase();
  const db = new pg.Client({ connectionString: targetDb.url });
  await db.connect();
  await db.query(`create table orders (id integer primary key, amount integer not null)`);
  await db.query(`insert into orders select i, i * 10 from generate_series(1, 30) as i`);
  await db.query(`create table big_orders (id integer primary key, amount integer not null)`);
  await db.query(`create table slow_out ${MARKED_ROWS_TABLE}`);
  await db.query(`create table decided_out (id integer primary key, amount integer not null)`);
  await db.end();
  // The console polls its run every second; the rate limit has its own tests.
  stack = await startStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_PER_MINUTE: '100000' });
  const project = await create(stack, '/v2/projects', { name: uniqueName('access'), description: 'For everyone' });
  const connector = await create(stack, '/v2/connectors', {
    name: uniqueName('pg'),
    type: 'postgres',
    config: targetDb.config(),
    project_id: project.id,
  });
  const pipeline = await create(stack, '/v2/pipelines', {
    name: uniqueName('big-orders'),
    project_id: project.id,
    dag: {
      nodes: [
        { id: 'orders', type: 'source', config: { connector_id: connector.id, table: 'orders' } },
        { id: 'big', type: 'transform', config: { sql: 'select id, amount from orders where amount >= 200' } },
        { id: 'load', type: 'sink', config: { connector_id: connector.id, table: 'big_orders', mode: 'append' } },
      ],
      edges: [
        { from: 'orders', to: 'big' },
        { from: 'big', to: 'load' },
      ],
    },
  });
  const job = await create(stack, '/v2/jobs', { name: uniqueName('nightly'), pipeline_id: pipeline.id });
  const run = await waitForRunEnd(stack, job.id, (await triggerRun(stack, job.id)).id, 60_000);
  expect(run.status).toBe('succeeded');
  llm = createServer((_req, res) => {
    const content = JSON.stringify({ choice: 'big', reason: 'most orders are large', confidence: 0.87 });
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-console',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'stand-in',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      }),
    );
  });
  await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
  const openai = await create(stack, '/v2/connectors', {
    name: uniqueName('llm'),
    type: 'openai',
    config: { base_url: `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`, model: 'stand-in' },
  });
  const decided = await createPipelineAndJob(stack, {
    nodes: [
      { id: 'orders', type: 'source', config: { connector_id: connector.id, table: 'orders' } },
      {
        id: 'route',
        type: 'decision',
        config: {
          strategy: 'llm',
          connector_id: openai.id,
          prompt: 'Rows: {{row_count}}',
          choices: ['big', 'small'],
          default: 'small',
        },
      },
      { id: 'load', type: 'sink', config: { connector_id: connector.id, table: 'decided_out', mode: 'append' } },
    ],
    edges: [
      { from: 'orders', to: 'route' },
      { from: 'route', to: 'load', when: 'big' },
    ],
  });
  const decidedRun = await waitForRunEnd(stack, decided.jobId, (await triggerRun(stack, decided.jobId)).id, 60_000);
  expect(decidedRun.status).toBe('succeeded');
  // Its source sleeps 60 s in PostgreSQL: a run to cancel.
  const slow = await createPipelineAndJob(stack, markedRowsDag(connector.id, 'slow_out', 3, 60));
  ids = {
    project: project.id,
    connector: connector.id,
    pipeline: pipeline.id,
    job: job.id,
    run: run.id,
    slowJob: slow.jobId,
    decidedJob: decided.jobId,
    decidedRun: decidedRun.id,
  };

  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await new Promise((resolve) => llm?.close(resolve));
  await targetDb?.drop();
});

/** The main pages, each with what shows it has loaded. */
const mainPages = () => [
  { name: 'projects', path: '/', ready: 'main .cards a' },
  { name: 'project', path: `/projects/${ids.project}`, ready: 'main .cards a' },
  { name: 'pipeline', path: `/pipelines/${ids.pipeline}`, ready: '.react-flow__node' },
  { name: 'job', path: `/jobs/${ids.job}`, ready: 'table.runs' },
  { name: 'run', path: `/jobs/${ids.job}/runs/${ids.run}`, ready: '.react-flow__node' },
  { name: 'connectors', path: '/connectors', ready: 'main h2' },
  { name: 'connector', path: `/connectors/${ids.connector}`, ready: 'main form' },
  { name: 'monitoring', path: '/monitoring', ready: '.chart-canvas canvas' },
  { name: 'webhooks', path: '/webhooks', ready: 'main .state-empty' },
];

async function open(path: string, ready: string): Promise<void> {
  await page.goto(`${stack.baseUrl}${path}`);
  await page.locator(ready).first().waitFor();
  await page
    .getByRole('status')
    .filter({ hasText: /^Loading/ })
    .first()
    .waitFor({ state: 'detached' });
}

it('signs in by keyboard alone: Tab to the key, type it, Enter', async () => {
  await page.goto(`${stack.baseUrl}/`);
  await page.getByLabel('API key').waitFor();
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('api-key');
  await page.keyboard.type(stack.bootstrapKey);
  await page.keyboard.press('Enter');
  await page.getByTestId('tenant').waitFor();
  expect(await page.getByTestId('tenant').textContent()).toBe('Operators');
});

it('on every main page: each control labelled, text at 4.5:1 or more, each control reached by Tab with its focus seen', async () => {
  const findings: Record<string, unknown> = {};
  for (const { name, path, ready } of mainPages()) {
    await open(path, ready);
    const walk = await tabThrough(page);
    findings[name] = {
      unnamed: await unnamedControls(page),
      lowContrast: await lowContrastText(page),
      missed: walk.missed,
      unseen: walk.unseen,
    };
    // A page with controls: the walk that found nothing missing did visit them.
    expect([name, walk.stops > 3]).toEqual([name, true]);
  }
  const clean = { unnamed: [], lowContrast: [], missed: [], unseen: [] };
  expect(findings).toEqual(Object.fromEntries(mainPages().map(({ name }) => [name, clean])));
});

it('fits every main page to a 390 px phone without scrolling sideways', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const widths: Record<string, number> = {};
    for (const { name, path, ready } of mainPages()) {
      await open(path, ready);
      widths[name] = await page.evaluate(() => document.documentElement.scrollWidth);
      await screenshot(page, shots, `phone-${name}`);
    }
    expect(Object.entries(widths).filter(([, width]) => width > 390)).toEqual([]);
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

it("filters a job's runs by status, and a run's live log (SSE) by node and by level on the server", async () => {
  await open(`/jobs/${ids.job}`, 'table.runs');
  const status = page.getByLabel('Status');
  await status.selectOption('failed');
  await page.getByText('No failed runs among the latest.').waitFor();
  expect(await page.getByRole('link', { name: ids.run }).count()).toBe(0);
  await status.selectOption('succeeded');
  await page.getByRole('link', { name: ids.run }).click();

  const logs = page.getByRole('region', { name: 'Logs' });
  const logLines = logs.getByRole('log', { name: 'Run log' }).getByRole('listitem');
  const ended = page.getByText('run ended: log complete');
  await ended.waitFor();
  const all = await logLines.allTextContents();
  const streamOf = (param: string) =>
    page.waitForRequest((request) => request.url().includes('/logs?') && request.url().includes(param));

  const byNode = streamOf('node_id=load');
  await logs.getByRole('combobox', { name: /^Node/ }).selectOption('load');
  expect((await byNode).headers()['accept']).toContain('text/event-stream');
  await ended.waitFor();
  const loadLines = await logLines.allTextContents();
  expect(loadLines.length).toBeGreaterThan(0);
  expect(loadLines.length).toBeLessThan(all.length);
  expect(loadLines.filter((line) => !line.includes('[load]'))).toEqual([]);

  // By level: the info lines only, then none (the run succeeded, so no line is an error).
  await logs.getByRole('combobox', { name: /^Node/ }).selectOption('');
  const level = logs.getByRole('combobox', { name: /^Level/ });
  const infoStream = streamOf('level=info');
  await level.selectOption('info');
  await infoStream;
  await ended.waitFor();
  const levels = await logs.locator('.log-level').allTextContents();
  expect(levels.length).toBeGreaterThan(0);
  expect(new Set(levels)).toEqual(new Set(['info']));
  await screenshot(page, shots, 'run-log-filtered');
  const errorStream = streamOf('level=error');
  await level.selectOption('error');
  await errorStream;
  await ended.waitFor();
  expect(await logLines.allTextContents()).toEqual(['No log lines.']);
});

it("streams a running run's log live, and cancels it from its page: canceled here and in the API, its node marked", async () => {
  await open(`/jobs/${ids.slowJob}`, 'main h1');
  await page.getByRole('button', { name: 'Trigger run' }).click();
  await page.waitForURL(new RegExp(`/jobs/${ids.slowJob}/runs/run_`));
  const runId = new URL(page.url()).pathname.split('/').pop()!;
  await page.locator('[data-node-id="rows"].state-running').waitFor({ timeout: 30_000 });
  // Live: the log shows the run's first lines while its source still sleeps, its stream still open.
  const logs = page.getByRole('region', { name: 'Logs' });
  await logs.getByRole('listitem').filter({ hasText: '[rows] source started' }).waitFor();
  expect([await logs.getByRole('status').textContent(), await page.getByTestId('run-status').textContent()]).toEqual([
    '● live',
    'running',
  ]);
  await page.getByRole('button', { name: 'Cancel run' }).click();
  await page.getByTestId('run-status').filter({ hasText: 'canceled' }).waitFor();
  await page.getByText('run ended: log complete').waitFor();
  expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
  expect(await page.locator('[data-node-id="rows"]').getAttribute('class')).toContain('state-canceled');
  expect((await getRun(stack, ids.slowJob, runId)).status).toBe('canceled');
  await screenshot(page, shots, 'run-canceled');
});

it("shows an LLM decision's choice, reason and confidence on its run's page, the branch it chose run", async () => {
  await open(`/jobs/${ids.decidedJob}/runs/${ids.decidedRun}`, '.react-flow__node');
  const decisions = page.getByRole('region', { name: 'Decisions' });
  expect(await decisions.locator('dt').allTextContents()).toEqual(['route']);
  expect(await decisions.locator('dd').textContent()).toBe('chose big (confidence 87%)most orders are large');
  expect(await page.locator('[data-node-id="load"]').getAttribute('class')).toContain('state-succeeded');
  await screenshot(page, shots, 'run-llm-decision');
});
