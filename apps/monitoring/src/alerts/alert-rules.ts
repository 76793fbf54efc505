import type { EntityManager } from 'typeorm';
import type { RunEvent, WebhookDisabledEvent, WebhookEnabledEvent } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { ALERT_COLUMNS, alertEventOf, type AlertRow } from './alert.mapper.js';
import { addAlertEvent } from '../outbox/outbox-writer.js';

/** Failures in a row (the open alert's occurrences) that make a job's alert critical. */
export const CRITICAL_AFTER_FAILURES = 3;
const MESSAGE_MAX = 2000;

function clip(message: string): string {
  return message.length <= MESSAGE_MAX ? message : `${message.slice(0, MESSAGE_MAX - 3)}...`;
}

/** Serialises alert changes of one subject (a job, a webhook) across workers and replicas, until the commit. */
async function lockSubject(m: EntityManager, key: string): Promise<void> {
  await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`conduit.monitoring.alerts:${key}`]);
}

async function insertAlert(m: EntityManager, row: AlertRow): Promise<void> {
  await m.query(
    `INSERT INTO alerts (${ALERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      row.id,
      row.tenant_id,
      row.job_id,
      row.run_id,
      row.webhook_id,
      row.rule,
      row.severity,
      row.status,
      row.message,
      row.occurrences,
      row.first_seen_at,
      row.last_seen_at,
      row.resolved_at,
    ],
  );
}

async function openJobAlert(m: EntityManager, tenantId: string, jobId: string): Promise<AlertRow | undefined> {
  const rows = await m.query<AlertRow[]>(
    `SELECT ${ALERT_COLUMNS} FROM alerts WHERE tenant_id = $1 AND job_id = $2 AND status = 'open' AND rule IN ('run_failed', 'consecutive_failures') FOR UPDATE`,
    [tenantId, jobId],
  );
  return rows[0];
}

async function openWebhookAlert(m: EntityManager, tenantId: string, webhookId: string): Promise<AlertRow | undefined> {
  const rows = await m.query<AlertRow[]>(
    `SELECT ${ALERT_COLUMNS} FROM alerts WHERE tenant_id = $1 AND webhook_id = $2 AND status = 'open' AND rule = 'webhook_disabled' FOR UPDATE`,
    [tenantId, webhookId],
  );
  return rows[0];
}

/** Resolves an open alert and announces it (alert.resolved through the outbox, in the same transaction). */
async function resolveAlert(m: EntityManager, open: AlertRow, at: Date): Promise<void> {
  const resolved: AlertRow = { ...open, status: 'resolved', resolved_at: at };
  await m.query(`UPDATE alerts SET status = 'resolved', resolved_at = $2 WHERE id = $1`, [open.id, at]);
  await addAlertEvent(m, alertEventOf(resolved, 'alert.resolved', new Date()));
}

/** A job's key among the batch's subjects: `tenant/job`. */
export function jobKeyOf(event: RunEvent): string {
  return `${event.tenant_id}/${event.run.job_id}`;
}

function whenOf(event: RunEvent): Date {
  return new Date(event.run.finished_at ?? event.created_at);
}

/**
 * Alert rules, applied inside the transaction that records the event, with their `alert.*` events written to the
 * outbox there too. Each answers whether it wrote an event (so the caller wakes the relay).
 */
export const alertRules = {
  /** A failed run opens a warning on its job, or counts one more occurrence; the third in a row is critical. */
  async runFailed(m: EntityManager, event: RunEvent): Promise<boolean> {
    const { run } = event;
    await lockSubject(m, `${event.tenant_id}/job/${run.job_id}`);
    const at = whenOf(event);
    const reason = run.error?.message ?? 'no error message';
    const open = await openJobAlert(m, event.tenant_id, run.job_id);
    if (!open) {
      const row: AlertRow = {
        id: newId('alert'),
        tenant_id: event.tenant_id,
        job_id: run.job_id,
        run_id: run.id,
        webhook_id: null,
        rule: 'run_failed',
        severity: 'warning',
        status: 'open',
        message: clip(`run ${run.id} failed: ${reason}`),
        occurrences: 1,
        first_seen_at: at,
        last_seen_at: at,
        resolved_at: null,
      };
      await insertAlert(m, row);
      await addAlertEvent(m, alertEventOf(row, 'alert.opened', new Date()));
      return true;
    }
    const occurrences = open.occurrences + 1;
    const critical = occurrences >= CRITICAL_AFTER_FAILURES;
    const message = critical
      ? `${occurrences} consecutive runs of job ${run.job_id} failed; the last, ${run.id}: ${reason}`
      : `run ${run.id} failed: ${reason}`;
    await m.query(
      `UPDATE alerts SET occurrences = $2, run_id = $3, last_seen_at = GREATEST(last_seen_at, $4), message = $5, rule = $6, severity = $7 WHERE id = $1`,
      [
        open.id,
        occurrences,
        run.id,
        at,
        clip(message),
        critical ? 'consecutive_failures' : open.rule,
        critical ? 'critical' : open.severity,
      ],
    );
    return false;
  },

  /** The job's next success resolves its open alert. */
  async runSucceeded(m: EntityManager, event: RunEvent): Promise<boolean> {
    await lockSubject(m, `${event.tenant_id}/job/${event.run.job_id}`);
    const open = await openJobAlert(m, event.tenant_id, event.run.job_id);
    if (!open) return false;
    await resolveAlert(m, open, whenOf(event));
    return true;
  },

  /** A disabled webhook opens an alert on it (or counts another occurrence of the open one). */
  async webhookDisabled(m: EntityManager, event: WebhookDisabledEvent): Promise<boolean> {
    await lockSubject(m, `${event.tenant_id}/webhook/${event.webhook.id}`);
    const at = new Date(event.created_at);
    const message = clip(`webhook ${event.webhook.id} (${event.webhook.url}) was disabled: ${event.reason}`);
    const open = await openWebhookAlert(m, event.tenant_id, event.webhook.id);
    if (open) {
      await m.query(
        `UPDATE alerts SET occurrences = occurrences + 1, last_seen_at = GREATEST(last_seen_at, $2), message = $3 WHERE id = $1`,
        [open.id, at, message],
      );
      return false;
    }
    const row: AlertRow = {
      id: newId('alert'),
      tenant_id: event.tenant_id,
      job_id: null,
      run_id: null,
      webhook_id: event.webhook.id,
      rule: 'webhook_disabled',
      severity: 'warning',
      status: 'open',
      message,
      occurrences: 1,
      first_seen_at: at,
      last_seen_at: at,
      resolved_at: null,
    };
    await insertAlert(m, row);
    await addAlertEvent(m, alertEventOf(row, 'alert.opened', new Date()));
    return true;
  },

  /** A webhook set back to active resolves its open webhook_disabled alert. */
  async webhookEnabled(m: EntityManager, event: WebhookEnabledEvent): Promise<boolean> {
    await lockSubject(m, `${event.tenant_id}/webhook/${event.webhook.id}`);
    const open = await openWebhookAlert(m, event.tenant_id, event.webhook.id);
    if (!open) return false;
    await resolveAlert(m, open, new Date(event.created_at));
    return true;
  },
};
