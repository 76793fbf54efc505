import { connect, createServer, type Socket } from 'node:net';
import type { ServiceProcess } from '@conduit/testing';
import { call } from './support/client.js';
import {
  createConnector,
  createPipelineAndJob,
  triggerRun,
  waitFor,
  waitForRun,
  waitForRunEnd,
} from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';
import type { ConnectionTestResult } from '@conduit/contracts';

// Graceful shutdown of the plain processes, as an orchestrator stops them (SIGTERM, then SIGKILL after a grace
// period): an executor stopped mid-run loses no run, and a gateway stopped under load answers what it took.
// Test Connection through the slow proxy below takes ~2 s; the default RPC timeout (5 s) leaves room, but a
// busy 2-core machine should not turn a slow answer into a 503.
const target = useTargetStack({ env: { RPC_TIMEOUT_MS: '20000' }, timeoutMs: 90_000 });

/** A pipeline whose source holds the run for `seconds` in PostgreSQL. */
function sleepyDag(seconds: number): Record<string, unknown> {
  return {
    nodes: [
      {
        id: 'sleepy',
        type: 'source',
        config: { connector_id: target.connectorId, query: `select 1 as n from (select pg_sleep(${seconds})) as s` },
      },
      { id: 'after', type: 'transform', config: { sql: 'select n from sleepy' } },
    ],
    edges: [{ from: 'sleepy', to: 'after' }],
  };
}

function exited(proc: ServiceProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
    return Promise.resolve({ code: proc.child.exitCode, signal: proc.child.signalCode, at: Date.now() });
  }
  return new Promise((resolve) => proc.child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
}

/** SIGTERM to the process group, as `docker stop` / the kubelet send it. */
function sigterm(proc: ServiceProcess): void {
  process.kill(-proc.child.pid!, 'SIGTERM');
}

const liveExecutors = () =>
  target.stack.processes.filter(
    (p) => p.name === 'executor' && p.child.exitCode === null && p.child.signalCode === null,
  );

/** Starts a run that sleeps `seconds` on the stack's only executor; answers that executor and the running run. */
async function sleepyRunOnTheExecutor(
  seconds: number,
): Promise<{ executor: ServiceProcess; jobId: string; runId: string }> {
  const [executor] = liveExecutors();
  expect(liveExecutors()).toHaveLength(1);
  const { jobId } = await createPipelineAndJob(target.stack, sleepyDag(seconds));
  const queued = await triggerRun(target.stack, jobId);
  await waitForRun(target.stack, jobId, queued.id, (r) => r.status === 'running', 30_000);
  return { executor: executor!, jobId, runId: queued.id };
}

describe('executor', () => {
  it('SIGTERM mid-run with a drain grace long enough: the run finishes on that executor, then it exits 0', async () => {
    const { executor: first, jobId, runId } = await sleepyRunOnTheExecutor(3);
    // A second executor runs meanwhile: the run must not need it, and the stack keeps an executor afterwards.
    // Its own drain grace is short, for the next test.
    await target.stack.startService('executor', { EXECUTOR_SHUTDOWN_GRACE_MS: '300' });

    const exit = exited(first);
    sigterm(first);
    const { code, at } = await exit;
    expect(code).toBe(0);
    const run = await waitForRunEnd(target.stack, jobId, runId, 30_000);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 1 });
    // It finished before the process went away, not after another executor took it again.
    expect(Date.parse(run.finished_at!)).toBeLessThanOrEqual(at);
  }, 90_000);

  it('SIGTERM mid-run past the drain grace: the run is handed back and the other executor finishes it', async () => {
    const { executor: draining, jobId, runId } = await sleepyRunOnTheExecutor(6);
    await target.stack.startService('executor');

    const exit = exited(draining);
    sigterm(draining);
    // The grace (300 ms) is far shorter than the run: the executor hands the run back and exits cleanly.
    expect((await exit).code).toBe(0);
    const run = await waitForRunEnd(target.stack, jobId, runId, 60_000);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2, error: null });
    expect(run.nodes.map((n) => n.status)).toEqual(['succeeded', 'succeeded']);
  }, 120_000);
});

/** A TCP proxy to the local PostgreSQL that holds each connection `delayMs` before passing bytes: a slow target. */
async function slowPostgresProxy(
  delayMs: number,
): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    count++;
    sockets.add(client);
    client.pause();
    const timer = setTimeout(() => {
      const upstream = connect(5432, '127.0.0.1', () => {
        client.pipe(upstream).pipe(client);
        client.resume();
      });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
    }, delayMs);
    client.on('error', () => undefined);
    client.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('proxy has no port');
  const close = async () => {
    sockets.forEach((socket) => socket.destroy());
    await new Promise((resolve) => server.close(resolve));
  };
  return { port: address.port, connections: () => count, close };
}

function connectionRefused(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

describe('gateway', () => {
  it('SIGTERM with requests in flight: each gets its normal answer, then new connections are refused', async () => {
    const proxy = await slowPostgresProxy(2000);
    try {
      const gateway = target.stack.processes.find((p) => p.name === 'gateway')!;
      const slow = await createConnector(
        target.stack,
        'postgres',
        target.targetDb.config({ port: proxy.port }),
        'slow-pg',
      );
      const IN_FLIGHT = 4;
      const answers = Promise.all(
        Array.from({ length: IN_FLIGHT }, () =>
          call<ConnectionTestResult>(target.stack, 'POST', `/v2/connectors/${slow}/test`),
        ),
      );
      // Every request has reached the catalog (through the gateway) and is waiting on the slow target.
      await waitFor(async () => proxy.connections() >= IN_FLIGHT, {
        what: 'the tests to reach the slow target',
        timeoutMs: 15_000,
        intervalMs: 20,
      });

      const exit = exited(gateway);
      sigterm(gateway);
      const results = await answers;
      const answeredAt = Date.now();
      for (const res of results) {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ ok: true, checks: expect.any(Array) });
      }
      const { code, signal, at } = await exit;
      // Nest's shutdown hook re-raises the signal once the server is closed; the answers ended their keep-alive
      // connections, so closing does not wait for the keep-alive timeout.
      expect(code === 0 || signal === 'SIGTERM').toBe(true);
      expect(at - answeredAt).toBeLessThan(5_000);
      expect(await connectionRefused(gateway.port)).toBe('ECONNREFUSED');
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
