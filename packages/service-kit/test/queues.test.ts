import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Queue, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { QUEUES, type RunLogBatch } from '@conduit/contracts';
import {
  JobConsumer,
  JobDataInvalidError,
  OUTAGE_BACKOFF,
  QueueProducers,
  QueueWorkers,
  QueuesModule,
  bullPrefix,
  missingHandlers,
  queueConnectionOptions,
  type ConsumerOptions,
  type JobHandlers,
} from '../src/index.js';
import { REDIS_URL } from './servers.js';
import { useRedisPrefix } from './support/redis-prefix.js';
import { recordingLogger, until } from './support/recording-logger.js';

const batch = (runId: string): RunLogBatch => ({
  run_id: runId,
  tenant_id: 'tnt_1',
  job_id: 'job_1',
  attempt: 1,
  lines: [{ n: 0, ts: new Date().toISOString(), level: 'info', node_id: null, message: 'hello' }],
});

class LogsConsumer extends JobConsumer<typeof QUEUES.logs> {
  readonly taken: RunLogBatch[] = [];

  constructor(workers: QueueWorkers, logger: Logger) {
    super(QUEUES.logs, workers, logger);
  }

  protected handlers(): JobHandlers<typeof QUEUES.logs> {
    return {
      'run.logs': (data) => {
        this.taken.push(data);
        return Promise.resolve(data.lines.length);
      },
    };
  }

  protected consumerOptions(): ConsumerOptions {
    return { enabled: true, concurrency: 1 };
  }
}

describe('queue consumers', () => {
  const { redisPrefix, closeFirst } = useRedisPrefix();
  let queue: Queue;

  beforeAll(() => {
    queue = new Queue(QUEUES.logs, { connection: queueConnectionOptions(REDIS_URL), prefix: bullPrefix(redisPrefix) });
    closeFirst(() => queue.close());
  });

  it('parses each job with its schema and dispatches it by name; a job that does not fit fails alone', async () => {
    const { logger, lines } = recordingLogger<{ level: number; msg: string }>();
    const consumer = new LogsConsumer(new QueueWorkers({ redisUrl: REDIS_URL, redisPrefix }), logger);
    consumer.onApplicationBootstrap();
    try {
      await queue.add('run.logs', { run_id: 'run_1', lines: 'not lines' }, { jobId: 'malformed' });
      await queue.add('run.log', batch('run_2'), { jobId: 'unknown-name' });
      await queue.add('run.logs', batch('run_3'), { jobId: 'good' });

      await until(() => consumer.taken.length === 1, 'the good job');
      expect(consumer.taken[0]?.run_id).toBe('run_3');
      const failed = (await Promise.all(['malformed', 'unknown-name'].map((id) => queue.getJob(id)))) as Job[];
      expect(await Promise.all(failed.map((j) => j.getState()))).toEqual(['failed', 'failed']);
      // Unrecoverable: no retry is spent on data that cannot change.
      expect(failed.map((j) => j.attemptsMade)).toEqual([1, 1]);
      expect(failed[0]?.failedReason).toBe('job logs/run.logs does not match its schema');
      expect(failed[1]?.failedReason).toBe('queue logs has no handler for job "run.log"');
      expect(lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual([
        'malformed job failed: its data does not match its schema',
        'job with an unknown name failed',
      ]);
    } finally {
      await consumer.onModuleDestroy();
    }
  });

  it('names each job of a consumed queue that has no handler', () => {
    const { logger } = recordingLogger<{ level: number; msg: string }>();
    const consumer = new LogsConsumer(new QueueWorkers({ redisUrl: REDIS_URL, redisPrefix }), logger);
    expect(missingHandlers([QUEUES.logs], [consumer])).toEqual([]);
    expect(missingHandlers([QUEUES.logs, QUEUES.eventsScheduler], [consumer])).toEqual([
      'no handler for job "run.started" of queue events.scheduler',
      'no handler for job "run.node" of queue events.scheduler',
      'no handler for job "run.finished" of queue events.scheduler',
      'no handler for job "batch" of queue events.scheduler',
    ]);
    expect(missingHandlers([], [consumer])).toEqual([
      'LogsConsumer consumes logs, which QueuesModule.forRoot does not list',
    ]);
  });

  it('refuses to start a service that consumes a queue without a handler for each of its jobs', async () => {
    const { logger } = recordingLogger<{ level: number; msg: string }>();
    @Module({ imports: [QueuesModule.forRoot({ redisUrl: REDIS_URL, redisPrefix, logger, consume: [QUEUES.logs] })] })
    class ServiceWithoutConsumer {}
    // createApplicationContext runs the init hooks: the check fails it before any worker starts.
    await expect(
      NestFactory.createApplicationContext(ServiceWithoutConsumer, { logger: false, abortOnError: false }),
    ).rejects.toThrow('queue consumers incomplete: no handler for job "run.logs" of queue logs');
  });

  it('gives a service typed producers that parse before sending, and its consumers', async () => {
    const { logger } = recordingLogger<{ level: number; msg: string }>();
    @Injectable()
    class Consumer extends LogsConsumer {
      constructor(workers: QueueWorkers) {
        super(workers, logger);
      }
    }
    @Module({
      imports: [
        QueuesModule.forRoot({
          redisUrl: REDIS_URL,
          redisPrefix,
          logger,
          produce: [QUEUES.logs],
          consume: [QUEUES.logs],
        }),
      ],
      providers: [Consumer],
    })
    class Service {}
    const app = await NestFactory.createApplicationContext(Service, { logger: false });
    try {
      const logs = app.get(QueueProducers).of(QUEUES.logs);
      // @ts-expect-error: the table has no such job name
      expect(() => logs.add('run.log', batch('run_4'), { jobId: 'typo' })).toThrow('queue logs has no job named');
      const bad = { ...batch('run_5'), attempt: 0 };
      expect(() => logs.add('run.logs', bad, { jobId: 'bad' })).toThrow('job logs/run.logs refused before sending');
      // A permanent refusal, told apart from a Redis outage by its type: callers do not retry it.
      expect(() => logs.addBulk([{ name: 'run.logs', data: bad, opts: { jobId: 'bad' } }])).toThrow(
        JobDataInvalidError,
      );
      const job = await logs.add('run.logs', batch('run_6'), { jobId: 'sent' });
      // The queue's defaults apply (job-options.ts): retried through an outage, a failed batch kept a day.
      expect(job.opts).toMatchObject({
        attempts: 17_300,
        backoff: { type: OUTAGE_BACKOFF },
        removeOnFail: { age: 24 * 3600, count: 1_000 },
      });
      const consumer = app.get(Consumer);
      await until(() => consumer.taken.some((b) => b.run_id === 'run_6'), 'the produced job');
    } finally {
      await app.close();
    }
  });
});
