// Metrics, alerts and run logs.
import {
  EXAMPLE_IDS,
  alertListQuerySchema,
  alertPageSchema,
  metricsQuerySchema,
  metricsSchema,
  runLogPageSchema,
  runLogQuerySchema,
} from '@conduit/contracts';
import type { OperationSpec } from '../operation-spec.js';
import { lastEventIdParam } from '../headers.js';
import { idParams, one } from './common.js';

/** `since` checks its value with a refinement; the document shows the same rule as a pattern. */
const metricsQuery = metricsQuerySchema.extend({
  since: metricsQuerySchema.shape.since.meta({
    pattern: '^[1-9][0-9]{0,7}[smhdw]$',
    description: 'The window: a positive integer and a unit among s, m, h, d, w; at most 90d.',
    example: '7d',
  }),
});

const line = (seq: number, level: 'info' | 'warn', nodeId: string | null, message: string) => ({
  seq,
  ts: `2026-11-22T10:15:0${seq}.000Z`,
  level,
  node_id: nodeId,
  message,
});
const lines = [
  line(1, 'info', null, 'run started (attempt 1)'),
  line(2, 'info', 'orders', 'read 1280 rows'),
  line(3, 'warn', 'clean', 'dropped 6 rows with amount <= 0'),
];

const STREAM_EXAMPLE =
  lines.map((l) => `id: ${l.seq}\ndata: ${JSON.stringify(l)}\n\n`).join('') + 'event: end\ndata: {}\n\n';

export const monitoringOperations: OperationSpec[] = [
  {
    operationId: 'getMetrics',
    method: 'get',
    path: '/v2/metrics',
    tag: 'Monitoring',
    status: 200,
    summary: 'Get Metrics',
    description:
      'Runs of the tenant (or of one job) queued inside the window `since` (default 24h, at most 90d): counts by status, ' +
      '`success_rate` = succeeded / (succeeded + failed) or null, durations of finished runs (avg, p50, p95, max), rows ' +
      "read and written, and a series of at most 60 buckets sized to the window. A `job_id` that is not the caller's is a 404.",
    query: metricsQuery,
    response: {
      schema: metricsSchema,
      description: 'The metrics.',
      examples: one('A day of one job', {
        job_id: EXAMPLE_IDS.job,
        since: '24h',
        from: '2026-11-21T10:15:00.000Z',
        to: '2026-11-22T10:15:00.000Z',
        runs: { total: 4, queued: 0, running: 1, succeeded: 2, failed: 1, canceled: 0 },
        success_rate: 0.6667,
        duration_ms: { avg: 2480, p50: 2390, p95: 2950, max: 2990 },
        rows: { read: 3840, written: 3822 },
        series: [{ start: '2026-11-22T02:00:00.000Z', succeeded: 1, failed: 0, avg_duration_ms: 2564 }],
      }),
    },
    errors: ['not_found'],
  },
  {
    operationId: 'listAlerts',
    method: 'get',
    path: '/v2/alerts',
    tag: 'Monitoring',
    status: 200,
    summary: 'List Alerts',
    description:
      'Newest first. A failed run opens an alert on its job (or counts another occurrence of the open one); three failures ' +
      'in a row make it `critical`; the next success resolves it.',
    query: alertListQuerySchema,
    response: {
      schema: alertPageSchema,
      description: 'A page of alerts.',
      examples: one('One open alert', {
        data: [
          {
            id: EXAMPLE_IDS.alert,
            job_id: EXAMPLE_IDS.job,
            run_id: EXAMPLE_IDS.run,
            webhook_id: null,
            rule: 'consecutive_failures',
            severity: 'critical',
            status: 'open',
            message: 'nightly-orders failed 3 times in a row',
            occurrences: 3,
            first_seen_at: '2026-11-20T01:00:05.000Z',
            last_seen_at: '2026-11-22T01:00:04.000Z',
            resolved_at: null,
          },
        ],
        next_cursor: null,
      }),
    },
  },
  {
    operationId: 'getRunLogs',
    method: 'get',
    path: '/v2/jobs/{job_id}/runs/{run_id}/logs',
    tag: 'Monitoring',
    status: 200,
    summary: 'Get Run Logs',
    description:
      'Oldest first, in `seq` order, filtered by `level` and `node_id`. With `Accept: text/event-stream` the lines stream ' +
      'live as server-sent events (`id` = seq, data = the line as JSON) until the run has ended, closing with `event: end`; ' +
      'a client that reconnects with `Last-Event-ID` resumes after that line. The credential is checked again every few ' +
      'seconds: once the key is revoked or the token expired, the stream sends `event: error` (data = the problem) and ends.',
    params: idParams({ job_id: 'job', run_id: 'run' }),
    query: runLogQuerySchema,
    headerParams: [lastEventIdParam],
    response: {
      schema: runLogPageSchema,
      description: 'A page of log lines (`application/json`), or the live stream (`text/event-stream`).',
      examples: one('Three lines', { data: lines, next_cursor: null }),
    },
    alsoAnswers: {
      'text/event-stream': {
        schema: {
          type: 'string',
          description:
            'Server-sent events: one event per log line (`id` = seq), then `event: end`; `event: error` with a problem document when the credential stops being valid.',
        },
        example: STREAM_EXAMPLE,
      },
    },
  },
];
