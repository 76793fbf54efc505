import { Queue } from 'bullmq';
import { QUEUES, type AlertEvent, type RunEvent } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { bullPrefix } from '@conduit/service-kit';
import { REDIS_URL } from './redis.js';

/** A run event as the scheduler publishes it. */
export function runEvent(tenantId: string, type: RunEvent['type'], overrides: Partial<RunEvent['run']> = {}): RunEvent {
  const finished = type === 'run.succeeded' || type === 'run.failed' || type === 'run.canceled';
  const status = {
    'run.queued': 'queued',
    'run.started': 'running',
    'run.succeeded': 'succeeded',
    'run.failed': 'failed',
    'run.canceled': 'canceled',
  } as const;
  return {
    event_id: newId('event'),
    type,
    created_at: new Date().toISOString(),
    tenant_id: tenantId,
    run: {
      id: newId('run'),
      job_id: newId('job'),
      pipeline_id: newId('pipeline'),
      pipeline_version: 1,
      status: status[type],
      trigger: 'manual',
      attempt: 1,
      queued_at: '2026-01-01T00:00:00.000Z',
      started_at: type === 'run.queued' ? null : '2026-01-01T00:00:01.000Z',
      finished_at: finished ? '2026-01-01T00:00:03.500Z' : null,
      duration_ms: finished ? 2500 : null,
      error: type === 'run.failed' ? { message: 'Binder Error: no such table', node_id: 'clean' } : null,
      stats: { rows_read: 10, rows_written: 10 },
      ...overrides,
    },
  };
}

export function alertEvent(tenantId: string, type: AlertEvent['type']): AlertEvent {
  const now = new Date().toISOString();
  return {
    event_id: newId('event'),
    type,
    created_at: now,
    tenant_id: tenantId,
    alert: {
      id: newId('alert'),
      job_id: newId('job'),
      run_id: null,
      webhook_id: null,
      rule: 'run_failed',
      severity: 'warning',
      status: type === 'alert.opened' ? 'open' : 'resolved',
      message: 'the run failed',
      occurrences: 1,
      first_seen_at: now,
      last_seen_at: now,
      resolved_at: type === 'alert.resolved' ? now : null,
    },
  };
}

/** Publishes events on the suite's events.webhooks queue, as the scheduler's and monitoring's outboxes do. */
export class EventPublisher {
  readonly queue: Queue;

  constructor(prefix: string) {
    this.queue = new Queue(QUEUES.eventsWebhooks, { connection: { url: REDIS_URL }, prefix: bullPrefix(prefix) });
  }

  async publish(event: RunEvent | AlertEvent): Promise<void> {
    await this.queue.add(event.type, event, { jobId: event.event_id, removeOnComplete: true });
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
