import { z } from 'zod';
import { alertEventSchema, webhookDisabledEventSchema, webhookEnabledEventSchema } from './events.js';
import { QUEUES, type QueueName } from './queues.js';
import { runCommandSchema, runEventSchema, runLogBatchSchema, runReportSchema } from './run-messages.js';

/**
 * Queue `webhook-deliveries` (dispatcher -> itself): one attempt, the deliveries row to send, and its tenant (so the
 * worker can bound each tenant's share before it touches the row; absent in jobs queued before it was added).
 */
export const deliveryJobSchema = z.strictObject({
  delivery_id: z.string().min(1).max(64),
  tenant_id: z.string().min(1).max(64).optional(),
});
export type DeliveryJob = z.infer<typeof deliveryJobSchema>;

/** A run event is published under its own type as the job name. */
const runEventJobs = {
  'run.queued': runEventSchema,
  'run.started': runEventSchema,
  'run.succeeded': runEventSchema,
  'run.failed': runEventSchema,
  'run.canceled': runEventSchema,
} as const;

/** The job that carries several jobs of its queue: QueueProducer.addBatch sends it, JobConsumer takes it apart. */
export const BATCH_JOB = 'batch';
/** Most items in one batch job. */
export const BATCH_MAX_ITEMS = 100;

/**
 * A batch's data: each item is a job of the queue's other names, with its own dedupe id (what its job id would be
 * alone) and its own data (and trace context), which producer and consumer each check against the item's schema.
 */
function batchSchemaOf(names: readonly string[]) {
  const item = z.strictObject({
    name: z.enum(names as [string, ...string[]]),
    id: z.string().min(1).max(256),
    data: z.unknown(),
  });
  return z.strictObject({ jobs: z.array(item).min(1).max(BATCH_MAX_ITEMS) });
}
export type BatchJobData = z.output<ReturnType<typeof batchSchemaOf>>;

/**
 * A queue's jobs and its `batch` job, for the queues whose jobs may travel together (not runs, not deliveries): only
 * queues whose every consumer applies a job once by its id (event_id, a log batch's run and seq), since a batch
 * retried, or an item re-sent in another batch, hands it again.
 */
function batchable<J extends Record<string, z.ZodType>>(
  jobs: J,
): J & { [BATCH_JOB]: ReturnType<typeof batchSchemaOf> } {
  return { ...jobs, [BATCH_JOB]: batchSchemaOf(Object.keys(jobs)) };
}

/**
 * Every queue, its job names and the schema of each job's data: producers parse before they add, consumers parse
 * what they take and refuse to start without a handler for every name of a queue they consume. Job names, like
 * queue names, are persisted in Redis: NEVER rename one, only add. Event queues name a job after its event `type`.
 * The event and log queues also take `batch` (BATCH_JOB): several of their jobs in one.
 */
export const QUEUE_JOBS = {
  [QUEUES.runs]: { run: runCommandSchema },
  [QUEUES.eventsScheduler]: batchable({
    'run.started': runReportSchema,
    'run.node': runReportSchema,
    'run.finished': runReportSchema,
  }),
  [QUEUES.eventsMonitoring]: batchable({
    ...runEventJobs,
    'webhook.disabled': webhookDisabledEventSchema,
    'webhook.enabled': webhookEnabledEventSchema,
  }),
  [QUEUES.eventsWebhooks]: batchable({
    ...runEventJobs,
    'alert.opened': alertEventSchema,
    'alert.resolved': alertEventSchema,
  }),
  [QUEUES.logs]: batchable({ 'run.logs': runLogBatchSchema }),
  [QUEUES.webhookDeliveries]: { deliver: deliveryJobSchema },
  /** The former design's ticks (a BullMQ job scheduler per job): nothing adds to it now, only its leftovers are removed. */
  [QUEUES.schedulerTicks]: {},
} as const satisfies Record<QueueName, Record<string, z.ZodType>>;

export type QueueJobs = typeof QUEUE_JOBS;
/** The job names of queue Q that producers add and consumers' handlers take (`batch` is the kit's own). */
export type JobName<Q extends QueueName> = Exclude<keyof QueueJobs[Q] & string, typeof BATCH_JOB>;
/** The data of job J on queue Q, as its schema outputs it. */
export type JobData<Q extends QueueName, J extends JobName<Q>> = QueueJobs[Q][J] extends z.ZodType
  ? z.output<QueueJobs[Q][J]>
  : never;

/** Whether a queue's jobs may travel in `batch` jobs. */
export function isBatchable(queue: QueueName): boolean {
  return Object.hasOwn(QUEUE_JOBS[queue], BATCH_JOB);
}

/** The job names of a queue, `batch` included, for start-up checks and dispatch. */
export function jobNamesOf(queue: QueueName): string[] {
  return Object.keys(QUEUE_JOBS[queue]);
}

/** The schema of a job, or undefined for a name the table does not know. */
export function jobSchemaOf(queue: QueueName, jobName: string): z.ZodType | undefined {
  const jobs: Record<string, z.ZodType> = QUEUE_JOBS[queue];
  return Object.hasOwn(jobs, jobName) ? jobs[jobName] : undefined;
}
