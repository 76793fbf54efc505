import { randomUUID } from 'node:crypto';
import type { Stack } from '@conduit/testing';
import { call } from '../support/client.js';
import { uniqueName, waitFor, waitForRunEnd } from '../support/helpers.js';
import type { OwnRedis } from '@conduit/testing';
import { type FaultStack, startFaultStack } from '../support/fault-stack.js';
import { countProjectsNamed } from '../support/platform-database.js';
import {
  type Answer,
  type Load,
  type Operation,
  readiness,
  haltLoads,
  startLoad,
  unexpectedAnswers,
} from '../support/fault-load.js';
import type { Page, Project, Run, ProblemDocument } from '@conduit/contracts';

// R2 (issue 16): the platform's Redis killed for 20 s under a load of triggers, creates and reads, and started again
// from its AOF; then hung (SIGSTOP) and resumed. The stack runs on a PostgreSQL and a Redis of this file's own.
let redis: OwnRedis;
let stack: Stack;
let jobId: string;

/** How long Redis stays down (issue 16, R2). */
const OUTAGE_MS = 20_000;
/** REDIS_COMMAND_TIMEOUT_MS is 1 s: a rate-limit call and an RPC send may each spend it, and a little more. */
const QUICK_MS = 2_500;

let fault: FaultStack;

beforeAll(async () => {
  fault = await startFaultStack();
  ({ stack, redis, jobId } = fault);
}, 120_000);

afterEach(haltLoads);

afterAll(async () => {
  await fault?.destroy();
});

const operations = (n: number): Operation => {
  switch (n % 4) {
    case 0:
      return { kind: 'create', method: 'POST', path: '/v2/projects', body: { name: uniqueName('r2') } };
    case 1:
      return { kind: 'list', method: 'GET', path: '/v2/projects?limit=5' };
    case 2:
      return { kind: 'trigger', method: 'POST', path: `/v2/jobs/${jobId}/run` };
    default:
      // Idempotency fails closed: without its record the request must not run.
      return {
        kind: 'idempotent-create',
        method: 'POST',
        path: '/v2/projects',
        body: { name: uniqueName('r2-idem') },
        headers: { 'idempotency-key': randomUUID() },
      };
  }
};

async function everyServiceReady(): Promise<boolean> {
  const reports = await Promise.all(stack.processes.map((p) => readiness(p.port)));
  return reports.every((r) => r.status === 200);
}

/** Every service's /readyz names Redis as down (and only Redis). */
async function everyServiceNamesRedis(): Promise<boolean> {
  const reports = await Promise.all(stack.processes.map((p) => readiness(p.port)));
  return reports.every(
    (r) => r.status === 503 && /^error/.test(r.checks.redis ?? '') && (r.checks.db ?? 'ok') === 'ok',
  );
}

/** Recovery alone within 5 s: ready everywhere, then reads, writes and triggers succeed. */
async function expectRecoveryWithin5s(since: number): Promise<void> {
  await waitFor(everyServiceReady, { what: 'every service to be ready again, none restarted', timeoutMs: 5_000 });
  await waitFor(
    async () => {
      const [list, created, run] = await Promise.all([
        call<Page<Project>>(stack, 'GET', '/v2/projects?limit=1'),
        call<Project>(stack, 'POST', '/v2/projects', { body: { name: uniqueName('r2-after') } }),
        call<Run>(stack, 'POST', `/v2/jobs/${jobId}/run`),
      ]);
      if (list.status === 200 && created.status === 201 && run.status === 202) return true;
      throw new Error(
        `answers ${JSON.stringify([list, created, run].map((r) => ({ status: r.status, code: (r.body as { code?: string })?.code, detail: (r.body as { detail?: string })?.detail })))}`,
      );
    },
    { what: 'reads, writes and triggers to succeed again', timeoutMs: 5_000 },
  );
  expect(Date.now() - since).toBeLessThan(5_000 + 1_000);
  for (const p of stack.processes) expect(p.child.exitCode).toBeNull();
}

async function expectNothingHalfWritten(answers: Answer[], killedAt: number): Promise<void> {
  const creates = answers.filter((a) => a.kind === 'create' || a.kind === 'idempotent-create');
  for (const a of creates.filter((x) => x.status === 201))
    expect((await call<Project>(stack, 'GET', `/v2/projects/${a.id}`)).status).toBe(200);
  // Sent once Redis was gone, a create could not reach the catalog: its project must not exist. (One under way at
  // the kill may have been carried out, as after any timeout: issue 16's idempotency covers that.)
  const notSent = creates
    .filter((a) => a.at > killedAt && a.status === 503 && a.dependency === 'redis')
    .map((a) => String(a.body?.name));
  expect(notSent.length).toBeGreaterThan(0);
  expect(await countProjectsNamed(stack, notSent)).toBe(0);
}

/** Every trigger answered 202 before, during or after the outage ends its run, and none as lost. */
async function expectEveryAcceptedRunTerminal(answers: Answer[]): Promise<void> {
  const accepted = answers.filter((a) => a.kind === 'trigger' && a.status === 202).map((a) => a.id!);
  expect(accepted.length).toBeGreaterThan(0);
  const ends = await Promise.all(accepted.map((runId) => waitForRunEnd(stack, jobId, runId, 60_000)));
  const lost = ends.filter((run) => ['run_lost', 'executor_lost'].includes(run.error?.code ?? ''));
  expect(lost.map((run) => ({ id: run.id, status: run.status, error: run.error }))).toEqual([]);
}

async function loadUntil(load: Load, what: string, done: () => boolean, timeoutMs = 30_000): Promise<void> {
  await waitFor(async () => done(), { what, timeoutMs });
  expect(load.answers.length).toBeGreaterThan(0);
}

it('a Redis killed for 20 s answers 503 naming redis quickly; restarted from its AOF, every service recovers alone within 5 s and no accepted run is lost', async () => {
  const load = startLoad(stack, 3, operations);
  await loadUntil(load, 'the load to get answers', () => load.answers.filter((a) => a.status < 300).length >= 8);

  await redis.kill();
  const killedAt = Date.now();
  await waitFor(everyServiceNamesRedis, { what: '/readyz of every service to name Redis', timeoutMs: 10_000 });
  await loadUntil(
    load,
    '20 s of 503s naming Redis',
    () => {
      const down = load.answers.filter((a) => a.at > killedAt + 500 && a.status === 503 && a.dependency === 'redis');
      return (
        Date.now() - killedAt >= OUTAGE_MS &&
        ['create', 'list', 'trigger', 'idempotent-create'].every((kind) => down.some((a) => a.kind === kind))
      );
    },
    OUTAGE_MS + 10_000,
  );

  await redis.start();
  await expectRecoveryWithin5s(Date.now());
  const recoveredAt = Date.now();
  await loadUntil(
    load,
    'the load to succeed after recovery',
    () => load.answers.filter((a) => a.at > recoveredAt && a.status < 300).length >= 8,
  );
  const answers = await load.stop();

  expect(unexpectedAnswers(answers, stack)).toEqual([]);
  expect(answers.filter((a) => a.status === 503 && a.ms > QUICK_MS)).toEqual([]);
  expect(answers.filter((a) => a.at > recoveredAt && a.status >= 300)).toEqual([]);
  await expectNothingHalfWritten(answers, killedAt);
  await expectEveryAcceptedRunTerminal(answers);
}, 180_000);

it('a hung Redis (SIGSTOP) answers 503 within the command timeout, not when it wakes; resumed, services recover alone', async () => {
  redis.pause();
  const pausedAt = Date.now();
  try {
    const started = Date.now();
    const res = await call<ProblemDocument>(stack, 'GET', '/v2/projects?limit=1');
    expect({ status: res.status, dependency: res.body?.dependency }).toEqual({ status: 503, dependency: 'redis' });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(QUICK_MS);
    await waitFor(everyServiceNamesRedis, { what: '/readyz of every service to name Redis', timeoutMs: 10_000 });
    // Held past the RPC deadline (5 s), so nothing sent before the hang is run when it ends.
    await waitFor(async () => Date.now() - pausedAt > 6_000, {
      what: 'the hang to outlast the RPC deadline',
      timeoutMs: 10_000,
    });
  } finally {
    redis.resume();
  }
  await expectRecoveryWithin5s(Date.now());
}, 60_000);
