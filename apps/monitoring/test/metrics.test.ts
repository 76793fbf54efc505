import { describe, expect, it } from '@jest/globals';
import { useMonitoringSuite } from './support/monitoring-suite.js';
import { QUEUES, type Metrics } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { newTenant } from './support/db.js';
import { newRun, runEvent } from './support/run-events.js';

const suite = useMonitoringSuite({ queues: [QUEUES.eventsMonitoring] });
const { caller, publish } = suite;

function metrics(tenant: string, query: Record<string, unknown>): Promise<Metrics> {
  return caller.ok<Metrics>(tenant, 'monitoring.metrics.get', { query });
}

describe('Get Metrics', () => {
  const t = newTenant();
  const jobA = newId('job');
  const jobB = newId('job');

  beforeAll(async () => {
    const rows = { rows_read: 10, rows_written: 7 };
    // Job A: 3 successes and 2 failures (durations 100..500 ms), one running and one queued; job B: one success.
    await publish(
      ...[100, 200, 300].map((d) => runEvent(t, newRun(jobA), 'succeeded', { durationMs: d, rows })),
      ...[400, 500].map((d) => runEvent(t, newRun(jobA), 'failed', { durationMs: d, rows })),
      runEvent(t, newRun(jobA), 'running'),
      runEvent(t, newRun(jobA), 'queued'),
      runEvent(t, newRun(jobB), 'succeeded', { durationMs: 50 }),
      // Queued two hours ago: outside a 1h window, inside the default 24h.
      runEvent(t, newRun(jobA, new Date(Date.now() - 2 * 3600_000)), 'canceled', { durationMs: 5000 }),
    );
  });

  it('counts runs by status with the success rate, durations of finished runs and rows, for one job', async () => {
    const m = await metrics(t, { job_id: jobA, since: '1h' });
    expect(m).toMatchObject({
      job_id: jobA,
      since: '1h',
      runs: { total: 7, queued: 1, running: 1, succeeded: 3, failed: 2, canceled: 0 },
      success_rate: 0.6,
      duration_ms: { avg: 300, p50: 300, p95: 480, max: 500 },
      rows: { read: 50, written: 35 },
    });
    expect(new Date(m.to).getTime() - new Date(m.from).getTime()).toBe(3600_000);
    // 1h in 1-minute buckets, aligned on the minute.
    expect(m.series.length).toBeGreaterThanOrEqual(60);
    expect(m.series.length).toBeLessThanOrEqual(61);
    expect(m.series.reduce((sum, b) => sum + b.succeeded, 0)).toBe(3);
    expect(m.series.reduce((sum, b) => sum + b.failed, 0)).toBe(2);
    const busy = m.series.filter((b) => b.succeeded + b.failed > 0);
    for (const b of busy) expect(b.avg_duration_ms).toEqual(expect.any(Number));
    expect(m.series.every((b) => new Date(b.start).getTime() % 60_000 === 0)).toBe(true);
  });

  it('answers many calls at once, more than the database pool holds, each the same', async () => {
    // Each call reads on two connections: callers waiting for their second must never hold the pool between them.
    const answers = await Promise.all(Array.from({ length: 30 }, () => metrics(t, { job_id: jobA, since: '1h' })));
    const runs = answers.map((m) => m.runs);
    expect(runs).toEqual(runs.map(() => ({ total: 7, queued: 1, running: 1, succeeded: 3, failed: 2, canceled: 0 })));
  });

  it('covers every job of the tenant without job_id, and 24h by default', async () => {
    const m = await metrics(t, {});
    expect(m).toMatchObject({ job_id: null, since: '24h', runs: { total: 9, succeeded: 4, failed: 2, canceled: 1 } });
    expect(m.success_rate).toBeCloseTo(4 / 6, 10);
    expect(m.duration_ms.max).toBe(5000);
    expect(m.series.length).toBeLessThanOrEqual(61);
  });

  it('leaves runs queued before the window out', async () => {
    // A fixed wait on purpose: the one-second window must move past the runs.
    await new Promise((r) => setTimeout(r, 1100));
    const m = await metrics(t, { job_id: jobA, since: '1s' });
    expect(m.runs.total).toBe(0);
    expect(m.success_rate).toBeNull();
    expect(m.duration_ms).toEqual({ avg: null, p50: null, p95: null, max: null });
    expect(m.rows).toEqual({ read: 0, written: 0 });
  });

  it('shows nothing of another tenant', async () => {
    const m = await metrics(newTenant(), { job_id: jobA });
    expect(m.runs.total).toBe(0);
    expect(m.series.every((b) => b.succeeded === 0 && b.failed === 0 && b.avg_duration_ms === null)).toBe(true);
  });

  it('refuses a since outside the grammar', async () => {
    for (const since of ['0h', '1y', '-5m', '5', 'h', '10000000d', '91d']) {
      const reply = await caller.call(t, 'monitoring.metrics.get', { query: { since } });
      expect(reply.ok).toBe(false);
    }
  });
});
