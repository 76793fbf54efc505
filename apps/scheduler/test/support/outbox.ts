import type { DataSource } from 'typeorm';
import { QUEUES } from '@conduit/contracts';
import { OutboxRelay, QueueProducers, createLogger } from '@conduit/service-kit';
import { schedulerOutbox } from '../../src/outbox/scheduler-outbox.js';
import { schedulerSettings } from '../../src/scheduler-settings.js';
import { REDIS_URL } from './redis.js';

/** The queues the scheduler's outbox publishes to. */
export const SCHEDULER_PRODUCES = [QUEUES.runs, QUEUES.eventsMonitoring, QUEUES.eventsWebhooks];

/** Publishes what the outbox holds with a relay of its own, as a restarted scheduler's would; answers the rows. */
export async function drainOutbox(ds: DataSource, prefix: string): Promise<number> {
  const queues = QueueProducers.open({ redisUrl: REDIS_URL, redisPrefix: prefix }, SCHEDULER_PRODUCES);
  try {
    return await new OutboxRelay(
      ds,
      queues,
      createLogger({ service: 't', level: 'silent' }),
      schedulerOutbox(schedulerSettings({ redisUrl: REDIS_URL, redisPrefix: prefix })),
    ).drain();
  } finally {
    await queues.close();
  }
}
