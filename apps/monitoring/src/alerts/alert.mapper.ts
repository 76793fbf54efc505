import type { Alert, AlertEvent, AlertRule, AlertSeverity, AlertStatus } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { iso, isoOrNull } from '../common/timestamps.js';

/** An `alerts` row as PostgreSQL answers it. */
export interface AlertRow {
  id: string;
  tenant_id: string;
  job_id: string | null;
  run_id: string | null;
  webhook_id: string | null;
  rule: AlertRule;
  severity: AlertSeverity;
  status: AlertStatus;
  message: string;
  occurrences: number;
  first_seen_at: Date;
  last_seen_at: Date;
  resolved_at: Date | null;
}

export const ALERT_COLUMNS =
  'id, tenant_id, job_id, run_id, webhook_id, rule, severity, status, message, occurrences, first_seen_at, last_seen_at, resolved_at';

export function alertOf(row: AlertRow): Alert {
  return {
    id: row.id,
    job_id: row.job_id,
    run_id: row.run_id,
    webhook_id: row.webhook_id,
    rule: row.rule,
    severity: row.severity,
    status: row.status,
    message: row.message,
    occurrences: row.occurrences,
    first_seen_at: iso(row.first_seen_at),
    last_seen_at: iso(row.last_seen_at),
    resolved_at: isoOrNull(row.resolved_at),
  };
}

export function alertEventOf(row: AlertRow, type: AlertEvent['type'], at: Date): AlertEvent {
  return {
    event_id: newId('event'),
    type,
    created_at: at.toISOString(),
    tenant_id: row.tenant_id,
    alert: alertOf(row),
  };
}
