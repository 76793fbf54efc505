import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import { OutboxRelay as Relay, type OutboxRow } from '@conduit/outbox';
import { isBatchable, type QueueName } from '@conduit/contracts';
import { QueueProducers, type ProducedJob } from './queue-producer.js';
import { QUEUES_LOGGER, QUEUES_OUTBOX } from './queue-tokens.js';

/** A service's outbox: what QueuesModule.forRoot's `outbox` says. */
export interface OutboxOptions {
  /** Whether this process relays (services switch background work off in some tests). */
  enabled: boolean;
  /** How often the sweep runs; it picks up what a crashed process committed but never published. */
  sweepMs: number;
  /** Extra outbox columns `publish` reads. Default: none. */
  columns?: readonly string[];
  /**
   * The jobs a turn's rows (in id order) become, in that order, read inside the relay's transaction (so it may lock
   * rows the messages are about). A row may become no job, or several.
   */
  jobsOf(rows: OutboxRow[], manager: EntityManager): OutboxJob[] | Promise<OutboxJob[]>;
}

/** A job of one of the service's queues, as an outbox row becomes it. */
export type OutboxJob = { [Q in QueueName]: ProducedJob<Q> & { queue: Q } }[QueueName];

/**
 * Adds a turn's jobs with one round trip per queue (all at once), each queue's jobs in the turn's order: a batchable
 * queue's as `batch` jobs (addBatch: one job per 100, not one per event), `runs` with addBulk (an executor takes one
 * run per job), 500 a round trip. BullMQ's addBulk, like add, leaves a job whose id is already in the queue as it
 * is, so a turn sent again after a failure adds no run command twice; its events may be queued again in other
 * batches, and their consumers apply each once by its event id. Resolves once every job is added; the relay then
 * marks the rows.
 */
export async function addOutboxJobs(producers: QueueProducers, jobs: readonly OutboxJob[]): Promise<void> {
  const byQueue = new Map<QueueName, OutboxJob[]>();
  for (const job of jobs) {
    const list = byQueue.get(job.queue);
    if (list) list.push(job);
    else byQueue.set(job.queue, [job]);
  }
  // Each list holds jobs of its queue only, which the Map's key type cannot say; both read name, data and opts.
  await Promise.all(
    [...byQueue].map(async ([queue, list]) => {
      const producer = producers.of(queue) as unknown as BulkAdder;
      if (isBatchable(queue)) return producer.addBatch(list);
      // One MULTI each: a turn of the schedule clock's runs (thousands of commands) never holds Redis at once.
      for (let i = 0; i < list.length; i += BULK_ADD_MAX) await producer.addBulk(list.slice(i, i + BULK_ADD_MAX));
    }),
  );
}

/** Most jobs in one addBulk (one MULTI/EXEC, which Redis runs without serving anyone else). */
const BULK_ADD_MAX = 500;

interface BulkAdder {
  addBulk(jobs: readonly OutboxJob[]): Promise<unknown>;
  addBatch(jobs: readonly OutboxJob[]): Promise<unknown>;
}

/**
 * The outbox relay of packages/outbox as the one provider of every service with an outbox: started at bootstrap
 * when enabled, woken right after a commit, stopped before the queues close.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly relay: Relay;

  constructor(
    ds: DataSource,
    producers: QueueProducers,
    @Inject(QUEUES_LOGGER) logger: Logger,
    @Inject(QUEUES_OUTBOX) private readonly opts: OutboxOptions,
  ) {
    this.relay = new Relay({
      dataSource: ds,
      logger,
      sweepMs: opts.sweepMs,
      ...(opts.columns ? { columns: opts.columns } : {}),
      publish: async (manager, rows) => addOutboxJobs(producers, await opts.jobsOf(rows, manager)),
    });
  }

  onApplicationBootstrap(): void {
    if (this.opts.enabled) this.relay.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.relay.stop();
  }

  /** Publishes what is pending now (called right after a commit). */
  wake(): void {
    if (this.opts.enabled) this.relay.wake();
  }

  /** Publishes what is pending within `ms`, or with an earlier wake (packages/outbox `wakeWithin`). */
  wakeWithin(ms: number): void {
    if (this.opts.enabled) this.relay.wakeWithin(ms);
  }

  /** Publishes every pending row; answers how many (tests call it directly). */
  drain(): Promise<number> {
    return this.relay.drain();
  }
}
