import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, Worker, type Job, type Processor, type WorkerOptions } from 'bullmq';
import type { Logger } from 'pino';
import type { z } from 'zod';
import {
  BATCH_JOB,
  isBatchable,
  jobNamesOf,
  jobSchemaOf,
  type BatchJobData,
  type JobData,
  type JobName,
  type QueueName,
} from '@conduit/contracts';
import { bullPrefix, queueConnectionOptions, type QueueLocation } from './queue-connection.js';
import { SpanKind, type Context } from '@opentelemetry/api';
import { inSpan } from '@conduit/rpc-streams';
import { splitJobTrace } from './job-trace.js';
import { outageBackoff } from './job-options.js';

/**
 * One handler per job name of queue Q, given the data its schema parsed, the job, and the worker's lock token of it
 * (what job.moveToDelayed needs to put the job back for later).
 */
export type JobHandlers<Q extends QueueName> = {
  [J in JobName<Q>]: (data: JobData<Q, J>, job: Job, token?: string) => Promise<unknown>;
};

/** A consumer's worker: connection and prefix come from the queue location, the rest from the consumer. */
export interface ConsumerOptions extends Pick<
  WorkerOptions,
  'concurrency' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'
> {
  /** Whether this process runs the worker at all (services switch background work off in some tests). */
  enabled: boolean;
}

/** Opens workers at the service's queue location (one prefix rule, the fast-reconnect connection). */
export class QueueWorkers {
  readonly prefix: string;
  readonly connection: ReturnType<typeof queueConnectionOptions>;

  constructor(location: QueueLocation) {
    this.prefix = bullPrefix(location.redisPrefix);
    this.connection = queueConnectionOptions(location.redisUrl);
  }

  open(queue: QueueName, processor: Processor, opts: Omit<WorkerOptions, 'connection' | 'prefix'>): Worker {
    return new Worker(queue, processor, {
      ...opts,
      connection: this.connection,
      prefix: this.prefix,
      settings: { backoffStrategy: outageBackoff },
    });
  }
}

/**
 * The base of every queue consumer: it parses each job's data with the schema the contracts' table gives its name,
 * and hands it to the handler of that name. A job whose name or data does not fit fails at once as unrecoverable
 * (retrying cannot fix it) with one error line; the worker goes on. QueuesModule refuses to start a service whose
 * consumers of a queue lack a handler for one of its job names.
 *
 * The worker is BullMQ's own rather than @nestjs/bullmq's WorkerHost: WorkerHost fixes a worker's options in its
 * class decorator, while ours come from validated settings at boot (concurrency, a lock longer than the webhook
 * timeout) and a setting decides whether the worker runs at all.
 */
export abstract class JobConsumer<Q extends QueueName> implements OnApplicationBootstrap, OnModuleDestroy {
  private worker: Worker | null = null;

  protected constructor(
    readonly queue: Q,
    private readonly workers: QueueWorkers,
    protected readonly logger: Logger,
  ) {}

  /** The handler of every job name of the queue. */
  protected abstract handlers(): JobHandlers<Q>;

  /** Read at bootstrap, when settings are in. */
  protected abstract consumerOptions(): ConsumerOptions;

  /** Called when a job fails (after the error line of process() for a job that does not fit). Default: none. */
  protected onJobFailed?(job: Job | undefined, err: Error): void;

  /** The job names this consumer handles, `batch` (the kit's own) included (the start-up check compares them). */
  handledJobNames(): string[] {
    return [...Object.keys(this.handlers()), ...(isBatchable(this.queue) ? [BATCH_JOB] : [])];
  }

  onApplicationBootstrap(): void {
    const { enabled, ...opts } = this.consumerOptions();
    if (!enabled) return;
    this.worker = this.workers.open(this.queue, (job: Job, token?: string) => this.process(job, token), opts);
    this.worker.on('error', (err) => this.logger.warn({ err }, `${this.queue} worker error`));
    this.worker.on('failed', (job, err) => this.onJobFailed?.(job, err));
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }

  /**
   * Parses the job and runs its handler in a span (`job <queue>/<name>`, kind consumer) that continues the
   * producer's trace; answers what the handler answers. A batch job is taken apart (processBatch).
   */
  process(job: Job, token?: string): Promise<unknown> {
    if (job.name === BATCH_JOB && isBatchable(this.queue)) return this.processBatch(job);
    const { payload, parent } = splitJobTrace(job.data);
    return this.inJobSpan(job.name, parent, () => {
      const taken = this.take(job.name, payload);
      if ('run' in taken) return taken.run(job, token);
      this.logger.error({ queue: this.queue, job_id: job.id, job_name: job.name, ...taken.log }, taken.refused);
      throw new UnrecoverableError(taken.reason);
    });
  }

  /**
   * A batch job (QueueProducer.addBatch): each item is parsed with its own schema and handed to the handler of its
   * name in a span continuing the item's own trace. All are started in the batch's order before any is awaited, so
   * a group-committing handler takes them together and one run's items keep their order; the job is done when all
   * are. An item that does not fit (no handler for its name, its data refused: a consumer older than its producer)
   * gets one error line, and once the others have settled the batch fails unrecoverable, as such a lone job would:
   * it stays with the failed jobs, to be tried again once the consumer knows the item, not dropped.
   * A handler that throws fails the whole batch (once every item has settled), and the retry hands every item again:
   * safe because each consumer of a batchable queue applies an item once however often it comes (the scheduler's
   * reports by processed_events ON CONFLICT (event_id), monitoring's events ON CONFLICT (event_id), run_logs ON
   * CONFLICT (run_id, seq), the dispatcher's source events ON CONFLICT (event_id)).
   */
  private async processBatch(job: Job): Promise<unknown> {
    const parsed = jobSchemaOf(this.queue, BATCH_JOB)!.safeParse(splitJobTrace(job.data).payload);
    if (!parsed.success) {
      const log = { queue: this.queue, job_id: job.id, job_name: BATCH_JOB, issues: issuesOf(parsed.error) };
      this.logger.error(log, 'malformed job failed: its data does not match its schema');
      throw new UnrecoverableError(`job ${this.queue}/${BATCH_JOB} does not match its schema`);
    }
    const refused: Refusal[] = [];
    const settled = await Promise.allSettled(
      (parsed.data as BatchJobData).jobs.map((item) => {
        const { payload, parent } = splitJobTrace(item.data);
        return this.inJobSpan(item.name, parent, () => {
          const taken = this.take(item.name, payload);
          if ('run' in taken) return taken.run(job);
          const log = { queue: this.queue, job_id: job.id, item_id: item.id, job_name: item.name, ...taken.log };
          this.logger.error(log, taken.refused);
          refused.push(taken);
          return Promise.resolve(undefined);
        });
      }),
    );
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    if (refused.length > 0)
      throw new UnrecoverableError(`${refused.length} item(s) of the batch refused: ${refused[0]!.reason}`);
    return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
  }

  /** Runs `work` in the span of one job (or batch item) of this queue, continuing `parent`. */
  private inJobSpan(name: string, parent: Context, work: () => Promise<unknown>): Promise<unknown> {
    return inSpan(
      `job ${this.queue}/${name}`,
      SpanKind.CONSUMER,
      parent,
      (span) => {
        span.setAttributes({ 'messaging.system': 'bullmq', 'messaging.destination.name': this.queue });
        return work();
      },
      '@conduit/service-kit',
    );
  }

  /** A job's handler bound to the data its name's schema parsed, or why the job is refused (its error line). */
  private take(name: string, data: unknown): { run: (job: Job, token?: string) => Promise<unknown> } | Refusal {
    // Looked up by a name read from Redis; the data it is given below is what that name's schema parsed.
    const handlers = this.handlers() as unknown as Record<
      string,
      (data: unknown, job: Job, token?: string) => Promise<unknown>
    >;
    const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
    const schema = jobSchemaOf(this.queue, name);
    if (!handler || !schema)
      return {
        refused: 'job with an unknown name failed',
        reason: `queue ${this.queue} has no handler for job "${name}"`,
        log: {},
      };
    const parsed = schema.safeParse(data);
    if (!parsed.success)
      return {
        refused: 'malformed job failed: its data does not match its schema',
        reason: `job ${this.queue}/${name} does not match its schema`,
        log: { issues: issuesOf(parsed.error) },
      };
    return { run: (job, token) => handler(parsed.data, job, token) };
  }
}

/** Why a job (or batch item) is refused: its error line's message and fields, and the failed job's reason. */
interface Refusal {
  refused: string;
  reason: string;
  log: object;
}

/** The first few schema refusals, as paths and messages (never the values). */
function issuesOf(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), message: i.message }));
}

/**
 * The start-up check: every job name of each consumed queue has a handler among the queue's consumers, and nothing
 * consumes a queue the service did not declare. Answers one line per problem; empty when all is well.
 */
export function missingHandlers(consume: readonly QueueName[], consumers: readonly JobConsumer<QueueName>[]): string[] {
  const problems: string[] = [];
  for (const consumer of consumers)
    if (!consume.includes(consumer.queue))
      problems.push(
        `${consumer.constructor.name} consumes ${consumer.queue}, which QueuesModule.forRoot does not list`,
      );
  for (const queue of consume) {
    const handled = new Set(consumers.filter((c) => c.queue === queue).flatMap((c) => c.handledJobNames()));
    for (const name of jobNamesOf(queue))
      if (!handled.has(name)) problems.push(`no handler for job "${name}" of queue ${queue}`);
  }
  return problems;
}
