import { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { QUEUES, type RunLogBatch, type RunReport } from '@conduit/contracts';
import {
  JobConsumer,
  QueueProducers,
  QueueWorkers,
  bullPrefix,
  missingHandlers,
  queueConnectionOptions,
  withJobTrace,
  type ConsumerOptions,
  type JobHandlers,
} from '../src/index.js';
import { REDIS_URL } from './servers.js';
import { useRedisPrefix } from './support/redis-prefix.js';
import { useTracing } from './support/tracing.js';
import { recordingLogger, until } from './support/recording-logger.js';

const at = new Date().toISOString();
const base = { run_id: 'run_1', tenant_id: 'tnt_1', attempt: 1, epoch: 1, at };
const started = (id: string): RunReport => ({ ...base, event_id: id, type: 'run.started', executor_id: 'exe_1' });
const finished = (id: string): RunReport => ({
  ...base,
  event_id: id,
  type: 'run.finished',
  status: 'succeeded',
  error: null,
  stats: { rows_read: 0, rows_written: 0 },
  nodes: [],
});
const logs = (runId: string): RunLogBatch => ({
  run_id: runId,
  tenant_id: 'tnt_1',
  job_id: 'job_1',
  attempt: 1,
  lines: [{ n: 0, ts: at, level: 'info', node_id: null, message: 'hello' }],
});

/**
 * Records the reports its handlers are given, with the trace each runs in. A handler's work ends only once every
 * report of `gate` has been started: a consumer that awaited each item before starting the next would never end.
 */
class ReportsConsumer extends JobConsumer<typeof QUEUES.eventsScheduler> {
  readonly taken: { name: string; event_id: string; trace_id: string | undefined }[] = [];
  gate = 0;
  private opened: (() => void) | null = null;
  private readonly gateOpen = new Promise<void>((resolve) => (this.opened = resolve));

  constructor(workers: QueueWorkers, logger: Logger) {
    super(QUEUES.eventsScheduler, workers, logger);
  }

  protected handlers(): JobHandlers<typeof QUEUES.eventsScheduler> {
    const take = (name: string) => (report: RunReport) => {
      this.taken.push({ name, event_id: report.event_id, trace_id: trace.getActiveSpan()?.spanContext().traceId });
      if (this.taken.length >= this.gate) this.opened?.();
      return this.gateOpen;
    };
    return { 'run.started': take('run.started'), 'run.node': take('run.node'), 'run.finished': take('run.finished') };
  }

  protected consumerOptions(): ConsumerOptions {
    return { enabled: true, concurrency: 1 };
  }
}

/** Takes log batches; the first time it sees run_b it throws (a database outage, say). */
class FlakyLogsConsumer extends JobConsumer<typeof QUEUES.logs> {
  readonly taken: string[] = [];

  constructor(workers: QueueWorkers, logger: Logger) {
    super(QUEUES.logs, workers, logger);
  }

  protected handlers(): JobHandlers<typeof QUEUES.logs> {
    return {
      'run.logs': (batch) => {
        this.taken.push(batch.run_id);
        const first = this.taken.filter((id) => id === 'run_b').length === 1;
        return batch.run_id === 'run_b' && first ? Promise.reject(new Error('database away')) : Promise.resolve(1);
      },
    };
  }

  protected consumerOptions(): ConsumerOptions {
    return { enabled: true, concurrency: 1 };
  }
}

describe('batch jobs', () => {
  const { redisPrefix, closeFirst } = useRedisPrefix();
  const location = { redisUrl: REDIS_URL, redisPrefix };
  const producers = QueueProducers.open(location, [QUEUES.eventsScheduler, QUEUES.logs]);
  const reports = producers.of(QUEUES.eventsScheduler);
  closeFirst(() => producers.close());
  let raw: Queue;

  beforeAll(() => {
    raw = new Queue(QUEUES.eventsScheduler, {
      connection: queueConnectionOptions(REDIS_URL),
      prefix: bullPrefix(redisPrefix),
    });
    closeFirst(() => raw.close());
  });
  afterEach(async () => {
    await reports.queue.obliterate({ force: true });
  });

  it('adds one job as itself, and the same items sent twice as one batch job', async () => {
    const [alone] = await reports.addBatch([
      { name: 'run.started', data: started('evt_alone'), opts: { jobId: 'evt_alone' } },
    ]);
    expect([alone?.id, alone?.name]).toEqual(['evt_alone', 'run.started']);

    const items = [started('evt_1'), finished('evt_2')].map((r) => ({
      name: r.type,
      data: r,
      opts: { jobId: r.event_id },
    }));
    const [first] = await reports.addBatch(items);
    const [again] = await reports.addBatch(items);
    expect(first?.name).toBe('batch');
    expect(again?.id).toBe(first?.id);
    const waiting = await reports.queue.getJobs(['wait'], 0, -1, true);
    expect(waiting.map((j) => j.id)).toEqual(['evt_alone', first?.id]);
    expect((first?.data as { jobs: { name: string; id: string }[] }).jobs.map((i) => [i.name, i.id])).toEqual([
      ['run.started', 'evt_1'],
      ['run.finished', 'evt_2'],
    ]);
  });

  it('refuses a batch with an item its schema refuses, sending none', async () => {
    const bad = { ...finished('evt_bad'), epoch: -1 };
    await expect(
      reports.addBatch([
        { name: 'run.started', data: started('evt_ok'), opts: { jobId: 'evt_ok' } },
        { name: 'run.finished', data: bad, opts: { jobId: 'evt_bad' } },
      ]),
    ).rejects.toThrow('job events.scheduler/run.finished refused before sending');
    expect(await reports.queue.getJobCounts('wait')).toEqual({ wait: 0 });
  });

  it('hands the items to the handlers of their names in order, all started before any ends; a malformed item fails the batch, kept for a retry', async () => {
    const { logger, lines } = recordingLogger();
    const consumer = new ReportsConsumer(new QueueWorkers(location), logger);
    consumer.gate = 3;
    expect(missingHandlers([QUEUES.eventsScheduler], [consumer])).toEqual([]);
    consumer.onApplicationBootstrap();
    try {
      const malformed = { ...started('evt_m'), executor_id: 42 };
      const batch = await raw.add(
        'batch',
        {
          jobs: [
            { name: 'run.started', id: 'evt_a', data: started('evt_a') },
            { name: 'run.node', id: 'evt_m', data: malformed },
            { name: 'run.finished', id: 'evt_b', data: finished('evt_b') },
            { name: 'run.started', id: 'evt_c', data: started('evt_c') },
          ],
        },
        { jobId: 'batch-1' },
      );
      await until(async () => (await batch.getState()) === 'failed', 'the batch job');
      expect((await raw.getJob('batch-1'))?.failedReason).toMatch(
        /^1 item\(s\) of the batch refused: job .* does not match/,
      );
      expect(consumer.taken.map((t) => [t.name, t.event_id])).toEqual([
        ['run.started', 'evt_a'],
        ['run.finished', 'evt_b'],
        ['run.started', 'evt_c'],
      ]);
      const errors = lines.filter((l) => l['level'] === 50 && l['item_id'] !== undefined);
      expect(errors.map((l) => [l['msg'], l['item_id'], l['job_name']])).toEqual([
        ['malformed job failed: its data does not match its schema', 'evt_m', 'run.node'],
      ]);
    } finally {
      await consumer.onModuleDestroy();
    }
  });

  it('fails the whole batch when a handler throws, and the retry hands every item again', async () => {
    const { logger } = recordingLogger();
    const consumer = new FlakyLogsConsumer(new QueueWorkers(location), logger);
    consumer.onApplicationBootstrap();
    const logsQueue = producers.of(QUEUES.logs);
    try {
      const [job] = await logsQueue.addBatch(
        ['run_a', 'run_b', 'run_c'].map((id) => ({ name: 'run.logs', data: logs(id), opts: { jobId: `${id}-1-0` } })),
      );
      // The queue's backoff (job-options.ts) spaces the retry by a second.
      await until(async () => (await job!.getState()) === 'completed', 'the retried batch');
      expect(consumer.taken).toEqual(['run_a', 'run_b', 'run_c', 'run_a', 'run_b', 'run_c']);
      expect((await logsQueue.queue.getJob(job!.id!))?.attemptsMade).toBe(2);
    } finally {
      await consumer.onModuleDestroy();
    }
  });

  describe('with tracing on', () => {
    const exporter = new InMemorySpanExporter();
    useTracing(exporter);

    it("runs each item in its own span, continuing the item's own trace", async () => {
      const { logger } = recordingLogger();
      const consumer = new ReportsConsumer(new QueueWorkers(location), logger);
      consumer.onApplicationBootstrap();
      try {
        // Two reports made under two different spans (two runs' nodes), sent together.
        const made = ['evt_x', 'evt_y'].map((id) => {
          const span = trace.getTracer('test').startSpan(`node of ${id}`);
          const data = context.with(trace.setSpan(context.active(), span), () => withJobTrace(started(id)));
          span.end();
          return { span: span.spanContext(), job: { name: 'run.started' as const, data, opts: { jobId: id } } };
        });
        const [job] = await reports.addBatch(made.map((m) => m.job));
        await until(async () => (await job!.getState()) === 'completed', 'the batch job');
        expect(consumer.taken.map((t) => t.trace_id)).toEqual(made.map((m) => m.span.traceId));
        const itemSpans = exporter.getFinishedSpans().filter((s) => s.name === 'job events.scheduler/run.started');
        expect(itemSpans.map((s) => s.parentSpanContext?.spanId)).toEqual(made.map((m) => m.span.spanId));
      } finally {
        await consumer.onModuleDestroy();
      }
    });
  });
});
