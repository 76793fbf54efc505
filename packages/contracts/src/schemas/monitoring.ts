import { z } from 'zod';
import { idFilterSchema } from './common.js';
import { pageQueryShape } from '../pagination.js';
import { RUN_LOG_LEVELS } from '../run-messages.js';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 } as const;
export const MAX_METRICS_WINDOW_S = 90 * 86_400;

/** `since`: a positive integer and a unit among s, m, h, d, w, at most 90 days; answered in seconds. */
export function parseSince(value: string): number | undefined {
  const match = /^([1-9]\d{0,7})([smhdw])$/.exec(value);
  if (!match) return undefined;
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
  return seconds <= MAX_METRICS_WINDOW_S ? seconds : undefined;
}

export const metricsQuerySchema = z.strictObject({
  job_id: idFilterSchema('job').optional(),
  since: z
    .string()
    .default('24h')
    .refine((v) => parseSince(v) !== undefined, {
      message: 'must be a positive integer and a unit among s, m, h, d, w, at most 90d (e.g. 24h)',
    }),
});
export type MetricsQuery = z.infer<typeof metricsQuerySchema>;

export interface Metrics {
  job_id: string | null;
  since: string;
  from: string;
  to: string;
  runs: { total: number; queued: number; running: number; succeeded: number; failed: number; canceled: number };
  success_rate: number | null;
  duration_ms: { avg: number | null; p50: number | null; p95: number | null; max: number | null };
  rows: { read: number; written: number };
  series: { start: string; succeeded: number; failed: number; avg_duration_ms: number | null }[];
}

export const ALERT_STATUSES = ['open', 'resolved'] as const;
export const ALERT_SEVERITIES = ['warning', 'critical'] as const;
export const ALERT_RULES = ['run_failed', 'consecutive_failures', 'webhook_disabled'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];
export type AlertRule = (typeof ALERT_RULES)[number];

export const alertListQuerySchema = z.strictObject({
  ...pageQueryShape,
  job_id: idFilterSchema('job').optional(),
  status: z.enum(ALERT_STATUSES).optional(),
  severity: z.enum(ALERT_SEVERITIES).optional(),
});
export type AlertListQuery = z.infer<typeof alertListQuerySchema>;

export interface Alert {
  id: string;
  job_id: string | null;
  run_id: string | null;
  /** The webhook a `webhook_disabled` alert is about. */
  webhook_id: string | null;
  rule: AlertRule;
  severity: AlertSeverity;
  status: AlertStatus;
  message: string;
  occurrences: number;
  first_seen_at: string;
  last_seen_at: string;
  resolved_at: string | null;
}

export const runLogQuerySchema = z.strictObject({
  ...pageQueryShape,
  level: z.enum(RUN_LOG_LEVELS).optional(),
  node_id: z.string().min(1).max(200).optional(),
});
export type RunLogQuery = z.infer<typeof runLogQuerySchema>;

export interface RunLogLine {
  seq: number;
  ts: string;
  level: (typeof RUN_LOG_LEVELS)[number];
  node_id: string | null;
  message: string;
}

/**
 * Internal answer of `monitoring.logs.tail`: the lines after a position that match the filter, the last seq looked at
 * (every line up to it that is not in `data` did not match: the next tail starts after it), and whether the run has
 * ended with no line left after these.
 */
export interface RunLogTail {
  data: RunLogLine[];
  scanned_seq: number;
  run_finished: boolean;
}
