import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { MonitoringEvent, RunStatus } from '@conduit/contracts';
import { upsertRunFact } from '../facts/run-facts.js';
import { alertRules } from '../alerts/alert-rules.js';
import { OutboxRelay } from '@conduit/service-kit';
import { MonitoringMetrics } from '../telemetry/monitoring-metrics.js';

export type EventOutcome = 'applied' | 'duplicate' | 'stale';

/**
 * Applies one event of `events.monitoring` at most once per event id: run events update the run's fact and, when
 * they move it, the job's alerts; `webhook.disabled` opens an alert on the webhook, `webhook.enabled` resolves it.
 */
@Injectable()
export class MonitoringEvents {
  constructor(
    private readonly ds: DataSource,
    private readonly relay: OutboxRelay,
    private readonly metrics: MonitoringMetrics,
  ) {}

  async apply(event: MonitoringEvent): Promise<EventOutcome> {
    let counted: RunStatus | null = null;
    let announced = false;
    const outcome = await this.ds.transaction(async (m): Promise<EventOutcome> => {
      const inserted = await m.query<unknown[]>(
        `INSERT INTO processed_events (event_id, processed_at) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
        [event.event_id, new Date()],
      );
      if (inserted.length === 0) return 'duplicate';
      if (event.type === 'webhook.disabled') {
        announced = await alertRules.webhookDisabled(m, event);
        return 'applied';
      }
      if (event.type === 'webhook.enabled') {
        announced = await alertRules.webhookEnabled(m, event);
        return 'applied';
      }
      if (!(await upsertRunFact(m, event))) return 'stale';
      counted = event.run.status;
      if (event.type === 'run.failed') announced = await alertRules.runFailed(m, event);
      else if (event.type === 'run.succeeded') announced = await alertRules.runSucceeded(m, event);
      return 'applied';
    });
    // After the commit: a rolled-back transaction neither counts nor announces.
    if (counted) this.metrics.countRun(counted);
    if (announced) this.relay.wake();
    return outcome;
  }
}
