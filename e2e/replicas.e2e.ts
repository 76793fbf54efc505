import { startStack, stopProcess, type ServiceProcess, type Stack } from '@conduit/testing';
import { call, expectProblem } from './support/client.js';
import { inPool, listAll, uniqueName, waitFor } from './support/helpers.js';
import type { Page, Project } from '@conduit/contracts';

// Two catalog replicas behind one gateway (architecture.md, Messages): every request is handled by exactly one
// replica, both take a share, and losing one replica loses no request sent after it died.
let stack: Stack;
let first: ServiceProcess;
let second: ServiceProcess;

// The catalog logs one debug line per RPC it takes (RpcLogInterceptor); counting them per process shows who served.
const RPC_LINE = /"msg":"rpc received"/;

function rpcCount(proc: ServiceProcess, handler: string): number {
  return proc.output
    .join('')
    .split('\n')
    .filter((line) => RPC_LINE.test(line) && line.includes(`"handler":"${handler}"`)).length;
}

beforeAll(async () => {
  // 1,000 creates from one key must not meet the default 600/minute limit.
  stack = await startStack({ LOG_LEVEL: 'debug', RATE_LIMIT_PER_MINUTE: '100000' });
  first = stack.processes.find((p) => p.name === 'catalog')!;
  second = await stack.startService('catalog');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

it('1,000 concurrent creates through the gateway: each 201 once, no duplicate, both replicas served', async () => {
  const prefix = uniqueName('burst');
  const names = Array.from({ length: 1000 }, (_, i) => `${prefix}-${i}`);
  const statuses = await inPool(names.length, 100, async (i) => {
    const res = await call<Project>(stack, 'POST', '/v2/projects', { body: { name: names[i] } });
    return res.status;
  });
  const byStatus = statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});
  expect(byStatus).toEqual({ 201: 1000 });

  const projects = (await listAll<{ id: string; name: string }>(stack, '/v2/projects')).filter((p) =>
    p.name.startsWith(prefix),
  );
  expect(projects).toHaveLength(1000);
  expect(new Set(projects.map((p) => p.id)).size).toBe(1000);
  expect(new Set(projects.map((p) => p.name))).toEqual(new Set(names));

  const served = () => [rpcCount(first, 'ProjectsController.create'), rpcCount(second, 'ProjectsController.create')];
  // Exactly one replica took each create, and each took a real share. A service writes its log lines in batches,
  // within 100 ms (service-kit's logger): wait for the last ones rather than count what is written so far.
  const total = () => served().reduce((a, b) => a + b, 0);
  await waitFor(() => total() >= 1000, { what: 'the replicas to log every create', timeoutMs: 5_000 }).catch(
    () => undefined,
  );
  expect(total()).toBe(1000);
  expect(Math.min(...served())).toBeGreaterThanOrEqual(50);
}, 180_000);

it('after SIGKILL of one replica the other answers every request', async () => {
  await stopProcess(second.child, 'SIGKILL');
  expect(second.child.signalCode).toBe('SIGKILL');

  // Nothing was in flight when the replica died, so nothing is left pending on it: every request sent from now
  // on is read by the surviving replica and must succeed (no 503 allowance here).
  const prefix = uniqueName('after-kill');
  const results = await inPool(200, 20, async (i) => {
    const created = await call<Project>(stack, 'POST', '/v2/projects', { body: { name: `${prefix}-${i}` } });
    const read =
      created.status === 201 ? await call<Project>(stack, 'GET', `/v2/projects/${created.body.id}`) : undefined;
    return { create: created.status, read: read?.status };
  });
  expect(results.filter((r) => r.create !== 201 || r.read !== 200)).toEqual([]);
  await waitFor(() => rpcCount(first, 'ProjectsController.create') >= 200, {
    what: 'the surviving replica to log the creates',
    timeoutMs: 5_000,
  });
}, 120_000);

it('a replica killed mid-load: requests answer 201 or (only those it held) 503, and all later ones succeed', async () => {
  const extra = await stack.startService('catalog');
  const prefix = uniqueName('mid-kill');
  let done = 0;
  const killed = waitFor(async () => done >= 50, {
    what: 'some creates to finish',
    timeoutMs: 30_000,
    intervalMs: 5,
  }).then(() => stopProcess(extra.child, 'SIGKILL'));
  const statuses = await inPool(300, 30, async (i) => {
    const res = await call<Project>(stack, 'POST', '/v2/projects', { body: { name: `${prefix}-${i}` } });
    done++;
    if (res.status === 503) expectProblem(res, 503, 'service_unavailable');
    return res.status;
  });
  await killed;
  // Asserted: no answer other than 201 and 503, and a 503 only for a request the dead replica had taken (at most
  // its RPC concurrency, far fewer than the requests sent). Those it held are re-delivered after claimIdleMs.
  expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);
  expect(statuses.filter((s) => s === 503).length).toBeLessThan(64);
  expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(300 - 64);

  // Requests sent after the kill are read only by the survivor: every one succeeds, without waiting for the
  // dead replica's pending entries to be claimed.
  const after = await inPool(
    50,
    10,
    async (i) =>
      (await call<Project>(stack, 'POST', '/v2/projects', { body: { name: `${prefix}-after-${i}` } })).status,
  );
  expect(after.filter((s) => s !== 201)).toEqual([]);
  const names = (await listAll<{ id: string; name: string }>(stack, '/v2/projects'))
    .map((p) => p.name)
    .filter((n) => n.startsWith(prefix));
  expect(new Set(names).size).toBe(names.length);
}, 120_000);

it('with no replica left, a request gets 503 with Retry-After in about the RPC timeout', async () => {
  await stopProcess(first.child, 'SIGKILL');
  const started = Date.now();
  const res = await call<Page<Project>>(stack, 'GET', '/v2/projects');
  expectProblem(res, 503, 'service_unavailable');
  expect(res.headers.get('retry-after')).toBeTruthy();
  expect(Date.now() - started).toBeLessThan(5_000 + 3_000);
}, 30_000);
