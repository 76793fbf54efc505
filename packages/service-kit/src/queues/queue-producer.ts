import { createHash } from 'node:crypto';
import { Queue, type ConnectionOptions, type Job } from 'bullmq';
import {
  BATCH_JOB,
  BATCH_MAX_ITEMS,
  jobSchemaOf,
  type BatchJobData,
  type JobData,
  type JobName,
  type QueueName,
} from '@conduit/contracts';
import { bullPrefix, queueConnectionOptions, type QueueLocation } from './queue-connection.js';
import { QUEUE_JOB_OPTIONS } from './job-options.js';
import { JobDataInvalidError } from './job-data-invalid-error.js';
import { splitJobTrace, withJobTrace } from './job-trace.js';
import { traceCarrierOf } from '@conduit/rpc-streams';

/** What a producer sets on a job: the queue's defaults (job-options.ts) cover the rest. */
export interface ProducedJobOptions {
  /** Deduplicates: a job id already in the queue is not added again. */
  jobId: string;
  /** Milliseconds before the job may be taken. Default: none. */
  delay?: number;
}

export interface ProducedJob<Q extends QueueName, J extends JobName<Q> = JobName<Q>> {
  name: J;
  data: JobData<Q, J>;
  opts: ProducedJobOptions;
}

/** Adds the jobs of one queue, typed by the contracts' table and parsed with the job's schema before they leave. */
export class QueueProducer<Q extends QueueName> {
  constructor(
    readonly name: Q,
    /** For reading the queue (getJob, counts) and removing jobs; add through the producer. */
    readonly queue: Queue,
  ) {}

  /**
   * Sends the active trace context with the job (job-trace.ts), so its consumer continues the trace. Throws
   * JobDataInvalidError, before anything is sent, when the job's schema refuses `data`.
   */
  add<J extends JobName<Q>>(jobName: J, data: JobData<Q, J>, opts: ProducedJobOptions): Promise<Job> {
    this.check(jobName, data);
    return this.queue.add(jobName, withJobTrace(data), opts);
  }

  /**
   * One round trip for many jobs. Use add() when one of the ids may already be queued and must stay as it is. Throws
   * JobDataInvalidError, and sends none, when a job's schema refuses its data.
   */
  addBulk(jobs: readonly ProducedJob<Q>[]): Promise<Job[]> {
    for (const job of jobs) this.check(job.name, job.data);
    const carrier = traceCarrierOf();
    return this.queue.addBulk(jobs.map((j) => ({ name: j.name, data: withJobTrace(j.data, carrier), opts: j.opts })));
  }

  /**
   * Jobs that may travel together (a batchable queue's: contracts' isBatchable), in one round trip and as few jobs
   * as BATCH_MAX_ITEMS allows: one job is added as itself, as add() does; more go as `batch` jobs whose items keep
   * their own name, dedupe id (the job id each would have alone) and trace context, and which the consumer hands
   * item by item, in order, to its handlers (job-consumer.ts). A batch's job id is derived from its items' ids, so
   * the same items sent again in the same groups are one job; sent in other groups (a turn re-sent with more rows),
   * an item can be queued twice, which is why only queues whose every consumer applies an item once by its id are
   * batchable (contracts' QUEUE_JOBS). Throws JobDataInvalidError, and sends none, when an item's schema refuses its
   * data. No item may have a delay: a batch is taken at once.
   */
  async addBatch(jobs: readonly ProducedJob<Q>[]): Promise<Job[]> {
    if (jobs.length === 1) return [await this.add(jobs[0]!.name, jobs[0]!.data, jobs[0]!.opts)];
    for (const job of jobs) {
      if (job.opts.delay) throw new Error(`job ${this.name}/${job.name} has a delay: it cannot go in a batch`);
      this.check(job.name, job.data);
    }
    const carrier = traceCarrierOf();
    const items = jobs.map((j) => ({ name: j.name, id: j.opts.jobId, data: withJobTrace(j.data, carrier) }));
    const batches: { name: string; data: BatchJobData; opts: ProducedJobOptions }[] = [];
    for (let i = 0; i < items.length; i += BATCH_MAX_ITEMS) {
      const data = { jobs: items.slice(i, i + BATCH_MAX_ITEMS) };
      this.check(BATCH_JOB, data);
      batches.push({ name: BATCH_JOB, data, opts: { jobId: batchJobId(data.jobs.map((item) => item.id)) } });
    }
    return this.queue.addBulk(batches);
  }

  private check(jobName: string, traced: unknown): void {
    // An outbox row may already carry the trace context of the request that wrote it: the schema is the payload's.
    const { payload: data } = splitJobTrace(traced);
    const schema = jobSchemaOf(this.name, jobName);
    if (!schema) throw new Error(`queue ${this.name} has no job named "${jobName}" (packages/contracts queue-jobs.ts)`);
    const parsed = schema.safeParse(data);
    if (!parsed.success)
      throw new JobDataInvalidError(
        this.name,
        jobName,
        parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`),
      );
  }
}

/** A batch's job id: the same items (by id, in order) make the same id. BullMQ refuses a custom id with one `:`. */
function batchJobId(itemIds: readonly string[]): string {
  return `${BATCH_JOB}-${createHash('sha256').update(JSON.stringify(itemIds)).digest('hex')}`;
}

/** The producers of the queues a service declared (QueuesModule.forRoot's `produce`). */
export class QueueProducers {
  private readonly byName: ReadonlyMap<QueueName, QueueProducer<QueueName>>;

  constructor(producers: readonly QueueProducer<QueueName>[]) {
    this.byName = new Map(producers.map((p) => [p.name, p]));
  }

  /**
   * Producers outside a Nest module (the executor's runtime, tests), with the same prefix and job defaults as
   * QueuesModule's; close() closes them. `connection` defaults to the fast-reconnect options.
   */
  static open(
    location: QueueLocation,
    names: readonly QueueName[],
    connection: ConnectionOptions = queueConnectionOptions(location.redisUrl),
  ): QueueProducers {
    const prefix = bullPrefix(location.redisPrefix);
    return new QueueProducers(
      names.map(
        (name) =>
          new QueueProducer(
            name,
            new Queue(name, {
              connection,
              prefix,
              defaultJobOptions: QUEUE_JOB_OPTIONS[name],
            }),
          ),
      ),
    );
  }

  of<Q extends QueueName>(name: Q): QueueProducer<Q> {
    const producer = this.byName.get(name);
    if (!producer) throw new Error(`queue ${name} is not among this service's queues (QueuesModule.forRoot)`);
    return producer as unknown as QueueProducer<Q>;
  }

  /** Every declared queue, e.g. for depth metrics. */
  all(): QueueProducer<QueueName>[] {
    return [...this.byName.values()];
  }

  /** Closes the queues of open(); QueuesModule's are closed by @nestjs/bullmq at shutdown. */
  async close(): Promise<void> {
    await Promise.allSettled(this.all().map((p) => p.queue.close()));
  }
}
