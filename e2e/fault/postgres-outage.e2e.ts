import { randomUUID } from 'node:crypto';
import type { Stack } from '@conduit/testing';
import { call } from '../support/client.js';
import { mintToken, uniqueName, waitFor } from '../support/helpers.js';
import type { OwnPostgres } from '@conduit/testing';
import { type FaultStack, startFaultStack } from '../support/fault-stack.js';
import { countProjectsNamed } from '../support/platform-database.js';
import { type Operation, readiness, haltLoads, startLoad, unexpectedAnswers } from '../support/fault-load.js';
import type { Page, Project, Run } from '@conduit/contracts';

// R3 (issue 16): the platform's PostgreSQL stops under a light load of reads and writes, then starts again.
// The stack runs on a PostgreSQL and a Redis of this file's own, so stopping them touches nothing else.
let database: OwnPostgres;
let stack: Stack;
let jobId: string;
let bearer: string;

let fault: FaultStack;

beforeAll(async () => {
  // A short auth cache, so the API key's lookup meets the outage too.
  fault = await startFaultStack({ AUTH_CACHE_TTL_MS: '500' });
  ({ stack, database, jobId } = fault);
  // A JWT's check needs no database: its requests reach the catalog and meet the outage there.
  bearer = await mintToken(stack, { tenant_id: randomUUID() });
}, 120_000);

afterEach(haltLoads);

afterAll(async () => {
  await fault?.destroy();
});

const SERVICES_WITH_A_DATABASE: string[] = ['gateway', 'catalog', 'scheduler', 'monitoring', 'webhook-dispatcher'];

it('answers 2xx or 503 with Retry-After naming the database, recovers alone within 5 s, and writes nothing half', async () => {
  const operations = (n: number): Operation => {
    switch (n % 4) {
      case 0:
        return { kind: 'create', method: 'POST', path: '/v2/projects', body: { name: uniqueName('r3') }, bearer };
      case 1:
        return { kind: 'list', method: 'GET', path: '/v2/projects?limit=5', bearer };
      case 2:
        return { kind: 'trigger', method: 'POST', path: `/v2/jobs/${jobId}/run` };
      default:
        return { kind: 'key-list', method: 'GET', path: '/v2/projects?limit=1' };
    }
  };
  const load = startLoad(stack, 3, operations);
  await waitFor(async () => load.answers.filter((a) => a.status < 300).length >= 8, {
    what: 'the load to get answers',
    timeoutMs: 20_000,
  });

  await database.stop();
  const stoppedAt = Date.now();
  await waitFor(
    async () => {
      const withDb = stack.processes.filter((p) => SERVICES_WITH_A_DATABASE.includes(p.name));
      const reports = await Promise.all(withDb.map((p) => readiness(p.port)));
      return reports.every((r) => r.status === 503 && /^error/.test(r.checks.db ?? '') && r.checks.redis === 'ok');
    },
    {
      what: '/readyz of every service with a database (the gateway and the catalog among them) to name it',
      timeoutMs: 10_000,
    },
  );
  // About 10 s down, long enough for the key cache to lapse and every kind of request to meet the outage.
  await waitFor(
    async () => {
      const down = load.answers.filter(
        (a) => a.at > stoppedAt + 1000 && a.status === 503 && a.dependency === 'database',
      );
      return (
        Date.now() - stoppedAt >= 10_000 &&
        down.some((a) => a.kind === 'create') &&
        down.some((a) => a.kind === 'key-list')
      );
    },
    { what: '503s naming the database from the gateway (key lookup) and from the catalog', timeoutMs: 30_000 },
  );

  await database.start();
  const restartedAt = Date.now();
  await waitFor(
    async () => {
      const reports = await Promise.all(stack.processes.map((p) => readiness(p.port)));
      return reports.every((r) => r.status === 200);
    },
    { what: 'every service to be ready again, none restarted', timeoutMs: 5_000 },
  );
  await waitFor(
    async () => {
      const [list, created] = await Promise.all([
        call<Page<Project>>(stack, 'GET', '/v2/projects?limit=1'),
        call<Project>(stack, 'POST', '/v2/projects', { body: { name: uniqueName('r3-after') }, bearer }),
      ]);
      return list.status === 200 && created.status === 201;
    },
    { what: 'reads and writes to succeed again', timeoutMs: 5_000 },
  );
  expect(Date.now() - restartedAt).toBeLessThan(5_000 + 1_000);
  for (const p of stack.processes) expect(p.child.exitCode).toBeNull();
  const recoveredAt = Date.now();
  await waitFor(async () => load.answers.filter((a) => a.at > recoveredAt && a.status < 300).length >= 8, {
    what: 'the load to succeed after recovery',
    timeoutMs: 20_000,
  });
  const answers = await load.stop();

  expect(unexpectedAnswers(answers, stack)).toEqual([]);
  expect(answers.filter((a) => a.at > recoveredAt && a.status >= 300)).toEqual([]);
  // A 503 is quick: the database refuses at once, so nothing waits for the RPC timeout.
  expect(answers.filter((a) => a.status === 503 && a.ms > 4_000)).toEqual([]);

  // Nothing half-written: every 201 is there; no project whose create answered 503 is.
  const created = answers.filter((a) => a.kind === 'create' && a.status === 201);
  const refused = answers.filter((a) => a.kind === 'create' && a.status === 503);
  expect(created.length).toBeGreaterThan(0);
  expect(refused.length).toBeGreaterThan(0);
  for (const a of created)
    expect((await call<Project>(stack, 'GET', `/v2/projects/${a.id}`, { bearer })).status).toBe(200);
  expect(
    await countProjectsNamed(
      stack,
      refused.map((a) => String(a.body?.name)),
    ),
  ).toBe(0);
  // Every accepted trigger is a run the API knows.
  for (const a of answers.filter((x) => x.kind === 'trigger' && x.status === 202)) {
    expect((await call<Run>(stack, 'GET', `/v2/jobs/${jobId}/runs/${a.id}`)).status).toBe(200);
  }
}, 120_000);
