import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import type { RunNode } from '@conduit/contracts';
import { runNode } from '../../test/support/run-nodes.js';
import { RunMetrics } from './run-metrics.js';

function node(overrides: Partial<RunNode>): RunNode {
  return runNode('n', 'transform', 'succeeded', {
    started_at: '2026-11-25T00:00:00.000Z',
    finished_at: '2026-11-25T00:00:01.500Z',
    ...overrides,
  });
}

async function valuesOf(
  registry: Registry,
  name: string,
): Promise<Array<{ labels: Record<string, unknown>; value: number; metricName?: string }>> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  return (await metric.get()).values;
}

describe('RunMetrics', () => {
  it('counts ended executions by status, failures by error class, rows, and durations', async () => {
    const registry = new Registry();
    const metrics = new RunMetrics(registry, 4);
    metrics.ended('succeeded', 2, undefined, { rows_read: 10, rows_written: 7 });
    metrics.ended('failed', 1, 'auth_failed', { rows_read: 3, rows_written: 0 });
    metrics.ended('failed', 1, undefined, { rows_read: 0, rows_written: 0 });
    metrics.ended('handed_back', 5, undefined, { rows_read: 0, rows_written: 0 });
    expect(await valuesOf(registry, 'conduit_executor_runs_total')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ labels: { status: 'succeeded' }, value: 1 }),
        expect.objectContaining({ labels: { status: 'failed' }, value: 2 }),
        expect.objectContaining({ labels: { status: 'handed_back' }, value: 1 }),
      ]),
    );
    expect(await valuesOf(registry, 'conduit_executor_run_failures_total')).toEqual([
      expect.objectContaining({ labels: { error_class: 'auth_failed' }, value: 1 }),
      expect.objectContaining({ labels: { error_class: 'unclassified' }, value: 1 }),
    ]);
    expect((await valuesOf(registry, 'conduit_executor_rows_read_total'))[0]?.value).toBe(13);
    expect((await valuesOf(registry, 'conduit_executor_rows_written_total'))[0]?.value).toBe(7);
    const durations = await valuesOf(registry, 'conduit_executor_run_duration_seconds');
    expect(
      durations.find(
        (v) => v.metricName === 'conduit_executor_run_duration_seconds_sum' && v.labels.status === 'failed',
      )?.value,
    ).toBe(2);
  });

  it('times finished nodes by type and status, counts node failures, and ignores running ones', async () => {
    const registry = new Registry();
    const metrics = new RunMetrics(registry, 2);
    metrics.nodeChanged(node({ status: 'running', finished_at: null }));
    metrics.nodeChanged(node({ type: 'source', status: 'succeeded' }));
    metrics.nodeChanged(node({ type: 'sink', status: 'failed', error: { message: 'x', code: 'Not A Code!' } }));
    const counts = (await valuesOf(registry, 'conduit_executor_node_duration_seconds')).filter(
      (v) => v.metricName === 'conduit_executor_node_duration_seconds_count',
    );
    expect(counts.map((v) => [v.labels.type, v.labels.status, v.value])).toEqual([
      ['source', 'succeeded', 1],
      ['sink', 'failed', 1],
    ]);
    expect(await valuesOf(registry, 'conduit_executor_node_failures_total')).toEqual([
      expect.objectContaining({ labels: { type: 'sink', error_class: 'other' }, value: 1 }),
    ]);
  });

  it('observes queue wait for first executions only, and reads active runs and concurrency at scrape time', async () => {
    const registry = new Registry();
    const metrics = new RunMetrics(registry, 3);
    metrics.started(1_000, 3_500, 1);
    metrics.started(1_000, 60_000, 2);
    const wait = await valuesOf(registry, 'conduit_executor_queue_wait_seconds');
    expect(wait.find((v) => v.metricName === 'conduit_executor_queue_wait_seconds_sum')?.value).toBe(2.5);
    let active = 2;
    metrics.countActiveWith(() => active);
    expect((await valuesOf(registry, 'conduit_executor_active_runs'))[0]?.value).toBe(2);
    active = 0;
    expect((await valuesOf(registry, 'conduit_executor_active_runs'))[0]?.value).toBe(0);
    expect((await valuesOf(registry, 'conduit_executor_concurrency'))[0]?.value).toBe(3);
  });
});
