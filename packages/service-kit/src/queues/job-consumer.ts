import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, Worker, type Job, type Processor, type WorkerOptions } from 'bullmq';
import type { Logger } from 'pino';
import { jobNamesOf, jobSchemaOf, type JobData, type JobName, type QueueName } from '@conduit/contracts';
import { bullPrefix, queueConnectionOptions, type QueueLocation } from './queue-connection.js';
import { SpanKind } from '@opentelemetry/api';
import { inSpan } from '@conduit/rpc-streams';
import { splitJobTrace } from './job-trace.js';

/** One handler per job name of queue Q, given the data its schema parsed. */
export type JobHandlers<Q extends QueueName> = {
  [J in JobName<Q>]: (data: JobData<Q, J>, job: Job) => Promise<unknown>;
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
    return new Worker(queue, processor, { ...opts, connection: this.connection, prefix: this.prefix });
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

  /** The job names this consumer handles (the start-up check compares them with the contracts' table). */
  handledJobNames(): string[] {
    return Object.keys(this.handlers());
  }

  onApplicationBootstrap(): void {
    const { enabled, ...opts } = this.consumerOptions();
    if (!enabled) return;
    this.worker = this.workers.open(this.queue, (job: Job) => this.process(job), opts);
    this.worker.on('error', (err) => this.logger.warn({ err }, `${this.queue} worker error`));
    this.worker.on('failed', (job, err) => this.onJobFailed?.(job, err));
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }

  /**
   * Parses the job and runs its handler in a span (`job <queue>/<name>`, kind consumer) that continues the
   * producer's trace; answers what the handler answers.
   */
  process(job: Job): Promise<unknown> {
    const { payload, parent } = splitJobTrace(job.data);
    return inSpan(
      `job ${this.queue}/${job.name}`,
      SpanKind.CONSUMER,
      parent,
      (span) => {
        span.setAttributes({ 'messaging.system': 'bullmq', 'messaging.destination.name': this.queue });
        return this.handle(job, payload);
      },
      '@conduit/service-kit',
    );
  }

  private async handle(job: Job, data: unknown): Promise<unknown> {
    // Looked up by a name read from Redis; the data it is given below is what that name's schema parsed.
    const handlers = this.handlers() as unknown as Record<string, (data: unknown, job: Job) => Promise<unknown>>;
    const handler = Object.hasOwn(handlers, job.name) ? handlers[job.name] : undefined;
    const schema = jobSchemaOf(this.queue, job.name);
    if (!handler || !schema) {
      this.logger.error({ queue: this.queue, job_id: job.id, job_name: job.name }, 'job with an unknown name failed');
      throw new UnrecoverableError(`queue ${this.queue} has no handler for job "${job.name}"`);
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), message: i.message }));
      this.logger.error(
        { queue: this.queue, job_id: job.id, job_name: job.name, issues },
        'malformed job failed: its data does not match its schema',
      );
      throw new UnrecoverableError(`job ${this.queue}/${job.name} does not match its schema`);
    }
    return handler(parsed.data, job);
  }
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
