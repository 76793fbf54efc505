import { z } from 'zod';
import { alertEventSchema, webhookDisabledEventSchema, webhookEnabledEventSchema } from './events.js';
import { QUEUES, type QueueName } from './queues.js';
import { runCommandSchema, runEventSchema, runLogBatchSchema, runReportSchema } from './run-messages.js';

/** Queue `webhook-deliveries` (dispatcher -> itself): one attempt, the deliveries row to send. */
export const deliveryJobSchema = z.strictObject({ delivery_id: z.string().min(1).max(64) });
export type DeliveryJob = z.infer<typeof deliveryJobSchema>;

/** A run event is published under its own type as the job name. */
const runEventJobs = {
  'run.queued': runEventSchema,
  'run.started': runEventSchema,
  'run.succeeded': runEventSchema,
  'run.failed': runEventSchema,
  'run.canceled': runEventSchema,
} as const;

/**
 * Every queue, its job names and the schema of each job's data: producers parse before they add, consumers parse
 * what they take and refuse to start without a handler for every name of a queue they consume. Job names, like
 * queue names, are persisted in Redis: NEVER rename one, only add. Event queues name a job after its event `type`.
 */
export const QUEUE_JOBS = {
  [QUEUES.runs]: { run: runCommandSchema },
  [QUEUES.eventsScheduler]: {
    'run.started': runReportSchema,
    'run.node': runReportSchema,
    'run.finished': runReportSchema,
  },
  [QUEUES.eventsMonitoring]: {
    ...runEventJobs,
    'webhook.disabled': webhookDisabledEventSchema,
    'webhook.enabled': webhookEnabledEventSchema,
  },
  [QUEUES.eventsWebhooks]: { ...runEventJobs, 'alert.opened': alertEventSchema, 'alert.resolved': alertEventSchema },
  [QUEUES.logs]: { 'run.logs': runLogBatchSchema },
  [QUEUES.webhookDeliveries]: { deliver: deliveryJobSchema },
  /** The former design's ticks (a BullMQ job scheduler per job): nothing adds to it now, only its leftovers are removed. */
  [QUEUES.schedulerTicks]: {},
} as const satisfies Record<QueueName, Record<string, z.ZodType>>;

export type QueueJobs = typeof QUEUE_JOBS;
/** The job names of queue Q. */
export type JobName<Q extends QueueName> = keyof QueueJobs[Q] & string;
/** The data of job J on queue Q, as its schema outputs it. */
export type JobData<Q extends QueueName, J extends JobName<Q>> = QueueJobs[Q][J] extends z.ZodType
  ? z.output<QueueJobs[Q][J]>
  : never;

/** The job names of a queue, for start-up checks and dispatch. */
export function jobNamesOf(queue: QueueName): string[] {
  return Object.keys(QUEUE_JOBS[queue]);
}

/** The schema of a job, or undefined for a name the table does not know. */
export function jobSchemaOf(queue: QueueName, jobName: string): z.ZodType | undefined {
  const jobs: Record<string, z.ZodType> = QUEUE_JOBS[queue];
  return Object.hasOwn(jobs, jobName) ? jobs[jobName] : undefined;
}
