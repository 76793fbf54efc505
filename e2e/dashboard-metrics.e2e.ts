/**
 * Issue 21 item 3: deploy/grafana/conduit-dashboard.json parses, is shaped as Grafana imports it, and every metric its
 * queries name is exported by a running stack once a run has succeeded and one has failed (a dashboard whose
 * queries name nothing real draws empty panels and nobody notices).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPipelineAndJob, triggerRun, waitFor, waitForRunEnd } from './support/helpers.js';
import { parsePrometheusText } from './support/prometheus-text.js';
import { useTargetStack } from './support/target-stack.js';

const DASHBOARD = resolve(fileURLToPath(new URL('.', import.meta.url)), '../deploy/grafana/conduit-dashboard.json');

interface Target {
  refId: string;
  expr: string;
  datasource: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: Target[];
}

/** PromQL words that are not metric names: functions, aggregations, keywords. */
const PROMQL_WORDS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'count',
  'topk',
  'bottomk',
  'quantile',
  'stddev',
  'rate',
  'irate',
  'increase',
  'delta',
  'histogram_quantile',
  'label_replace',
  'clamp_min',
  'clamp_max',
  'abs',
  'vector',
  'scalar',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'e',
]);

/** The metric names a query selects: what is left once strings, label matchers, ranges and groupings are removed. */
function metricNamesOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const words = bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  return [...new Set(words.filter((w) => !PROMQL_WORDS.has(w)))];
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
  uid: string;
  title: string;
  templating: { list: { name: string; type: string }[] };
  panels: Panel[];
};
const queryPanels = dashboard.panels.filter((p) => p.type !== 'row');
const usedNames = [
  ...new Set(queryPanels.flatMap((p) => (p.targets ?? []).flatMap((t) => metricNamesOf(t.expr)))),
].sort();

describe('the Grafana dashboard', () => {
  it('is shaped as Grafana imports it: a uid, a Prometheus datasource variable every query uses, panels on the 24-column grid', () => {
    expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    expect(dashboard.templating.list).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'datasource', type: 'datasource' })]),
    );
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const panel of queryPanels) {
      expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
      expect(panel.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect((panel.targets ?? []).length).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.datasource).toEqual(panel.datasource);
      expect(new Set((panel.targets ?? []).map((t) => t.refId)).size).toBe(panel.targets?.length);
    }
  });

  it('covers the golden signals of every service and the runs', () => {
    expect(metricNamesOf('sum by (le) (rate(foo_bucket{a="b"}[5m])) / clamp_min(sum(bar_total), 1e-9)')).toEqual([
      'foo_bucket',
      'bar_total',
    ]);
    const titles = queryPanels.map((p) => p.title.toLowerCase()).join(' | ');
    for (const word of [
      'requests/s',
      'errors',
      'latency',
      'cpu',
      'event loop',
      'runs by status',
      'run duration',
      'queue wait',
      'active runs',
    ])
      expect(titles).toContain(word);
    expect(usedNames).toEqual(
      expect.arrayContaining([
        'http_request_duration_seconds_bucket',
        'rpc_request_duration_seconds_count',
        'process_cpu_seconds_total',
        'conduit_runs_total',
        'conduit_executor_run_duration_seconds_bucket',
        'conduit_executor_queue_wait_seconds_bucket',
        'conduit_executor_active_runs',
      ]),
    );
  });
});

describe("a running stack exports every metric the dashboard's queries name", () => {
  const target = useTargetStack({
    prepare: async (db) => {
      await db.query('create table orders (id integer primary key, amount numeric(10,2) not null)');
      await db.query('insert into orders select i, i * 1.5 from generate_series(1, 500) as i');
      await db.query('create table orders_copy (id integer, amount numeric(10,2))');
    },
    timeoutMs: 90_000,
  });

  it('after a run that succeeds and one that fails', async () => {
    const { stack, connectorId } = target;
    const sink = {
      id: 'load',
      type: 'sink',
      config: { connector_id: connectorId, table: 'orders_copy', mode: 'append' },
    };
    const good = await createPipelineAndJob(stack, {
      nodes: [{ id: 'extract', type: 'source', config: { connector_id: connectorId, table: 'orders' } }, sink],
      edges: [{ from: 'extract', to: 'load' }],
    });
    const bad = await createPipelineAndJob(stack, {
      nodes: [{ id: 'extract', type: 'source', config: { connector_id: connectorId, table: 'no_such_table' } }, sink],
      edges: [{ from: 'extract', to: 'load' }],
    });
    const succeeded = await waitForRunEnd(stack, good.jobId, (await triggerRun(stack, good.jobId)).id);
    expect(succeeded.status).toBe('succeeded');
    const failed = await waitForRunEnd(stack, bad.jobId, (await triggerRun(stack, bad.jobId)).id);
    expect(failed.status).toBe('failed');

    let missing: string[] = usedNames;
    // Run facts reach the monitoring service through a queue: wait until every name has a sample somewhere.
    await waitFor(
      async () => {
        const exported = new Set<string>();
        for (const p of stack.processes) {
          const res = await fetch(`http://127.0.0.1:${p.metricsPort}/metrics`);
          expect(res.status).toBe(200);
          for (const sample of parsePrometheusText(await res.text())) exported.add(sample.name);
        }
        missing = usedNames.filter((name) => !exported.has(name));
        return missing.length === 0;
      },
      { what: 'every dashboard metric to have a sample', timeoutMs: 20_000, intervalMs: 500 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; missing: ${missing.join(', ')}`);
    });
  });
});
