// A report the contract refuses (issue: security review, MEDIUM): it must cost only itself, never the run's end.
import { pino } from 'pino';
import { QUEUES, RUN_ERROR_MESSAGE_MAX } from '@conduit/contracts';
import { GroupedAdds, newId, QueueProducers } from '@conduit/service-kit';
import type { ExecutorRuntime } from '../src/runs/executor-runtime.js';
import { RunReporter } from '../src/reporting/run-reporter.js';
import { startExecutor } from './support/executor.js';
import { reportsOf } from './support/queues.js';
import { runNode } from './support/run-nodes.js';
import { REDIS_URL } from './support/redis.js';
import { startWorkerSuite, type WorkerSuite } from './support/worker-suite.js';

const TENANT = 'tnt_oversized_test';
let suite: WorkerSuite;
let runtime: ExecutorRuntime;
let producers: QueueProducers;

beforeAll(async () => {
  suite = await startWorkerSuite({ tenantId: TENANT, connectors: [], requests: [] });
  producers = QueueProducers.open({ redisUrl: REDIS_URL, redisPrefix: suite.prefix }, [QUEUES.eventsScheduler]);
  runtime = await startExecutor(suite.prefix);
});

afterAll(async () => {
  await runtime?.stop(1000);
  await producers?.close();
  await suite?.close();
});

/** The run's run.finished, waited for far less than the reporter's 60 s retry: a refused report must not delay it. */
const finishedOf = (runId: string) => suite.finished(runId, { timeoutMs: 15_000 });

it('a node failing with a 9,000-character message ends the run failed promptly, the message cut to the contract', async () => {
  const runId = newId('run');
  const dag = {
    nodes: [{ id: 'loud', type: 'transform', config: { sql: "select error(repeat('x', 9000))" } }],
    edges: [],
  };
  await suite.enqueue(runId, TENANT, dag);

  const end = await finishedOf(runId);
  expect(end.status).toBe('failed');
  expect(end.error!.message.length).toBeLessThanOrEqual(RUN_ERROR_MESSAGE_MAX);
  expect(end.error!.message).toMatch(/^node "loud" failed: .*x{1000}.*characters cut\]$/s);
  const node = end.nodes.find((n) => n.id === 'loud')!;
  expect(node.status).toBe('failed');
  expect(node.error!.message.length).toBeLessThanOrEqual(RUN_ERROR_MESSAGE_MAX);
  expect(node.error!.message).toMatch(/characters cut\]$/);
});

it('sends the rest of a batch when the contract refuses one report, and never retries the refused one', async () => {
  const runId = newId('run');
  const reporter = new RunReporter(
    new GroupedAdds(producers.of(QUEUES.eventsScheduler)),
    { run_id: runId, tenant_id: TENANT, attempt: 1, epoch: 1 },
    pino({ level: 'silent' }),
  );
  const node = (id: string, message: string) => runNode(id, 'transform', 'failed', { error: { message } });
  // Made in one turn, the four leave together in one batch, the refused one in the middle.
  reporter.send({ type: 'run.node', node: node('first', 'short') });
  reporter.send({ type: 'run.node', node: node('refused', 'x'.repeat(RUN_ERROR_MESSAGE_MAX + 1)) });
  reporter.send({ type: 'run.node', node: node('after', 'short') });
  const startedMs = Date.now();
  reporter.send({
    type: 'run.finished',
    status: 'failed',
    error: { message: 'short' },
    stats: { rows_read: 0, rows_written: 0 },
    nodes: [],
  });
  await reporter.flushed();
  // Well under one retry pause of an outage: nothing waited for the refused report.
  expect(Date.now() - startedMs).toBeLessThan(2_000);
  const sent = (await reportsOf(suite.queues.reports, runId)).map((r) => (r.type === 'run.node' ? r.node.id : r.type));
  expect(sent).toEqual(['first', 'after', 'run.finished']);
});
