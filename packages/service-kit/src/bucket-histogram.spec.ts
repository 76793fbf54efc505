import { Histogram, Registry } from 'prom-client';
import { BucketHistogram } from './bucket-histogram.js';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The same observations through prom-client's Histogram and a BucketHistogram, each in a registry of its own. */
function both(labelNames: string[]) {
  const theirs = new Registry();
  const ours = new Registry();
  for (const registry of [theirs, ours]) registry.setDefaultLabels({ service: 'gateway' });
  const config = { name: 'http_request_duration_seconds', help: 'Duration "of" \\ requests', buckets: BUCKETS };
  const histogram = new Histogram({ ...config, labelNames, registers: [theirs] });
  const bucketHistogram = new BucketHistogram({ ...config, labelNames, registers: [ours] });
  return {
    theirs,
    ours,
    bucketHistogram,
    observe(values: string[], value: number) {
      histogram.labels(...values).observe(value);
      bucketHistogram.observe(values, value);
    },
  };
}

describe('BucketHistogram', () => {
  it('exports what prom-client exports for the same observations: /metrics text and JSON', async () => {
    const h = both(['method', 'route', 'status']);
    const seen: [string[], number][] = [
      [['GET', '/v2/projects/:project_id', '200'], 0.0031],
      [['GET', '/v2/projects/:project_id', '200'], 0.005],
      [['GET', '/v2/projects/:project_id', '200'], 0.2],
      [['POST', '/v2/projects', '201'], 12],
      [['GET', 'unmatched', '404'], 0],
      [['GET', '/v2/"odd"\\path\nline', '200'], 0.1],
      [['GET', '/v2/projects/:project_id', '304'], 1e-9],
    ];
    for (let i = 0; i < 50; i++) for (const [values, seconds] of seen) h.observe(values, seconds * (1 + i / 7));
    expect(await h.ours.metrics()).toEqual(await h.theirs.metrics());
    expect(await h.ours.getMetricsAsJSON()).toEqual(await h.theirs.getMetricsAsJSON());
  });

  it('exports an empty histogram and a reset one as prom-client does', async () => {
    const h = both(['pattern', 'outcome']);
    expect(await h.ours.metrics()).toEqual(await h.theirs.metrics());
    h.observe(['catalog.projects.get', 'ok'], 0.01);
    h.theirs.resetMetrics();
    h.ours.resetMetrics();
    expect(await h.ours.metrics()).toEqual(await h.theirs.metrics());
  });

  it('refuses what prom-client refuses: a value that is not a finite number, a wrong number of labels', () => {
    const h = both(['pattern', 'outcome']);
    expect(() => h.bucketHistogram.observe(['p', 'ok'], NaN)).toThrow(TypeError);
    expect(() => h.bucketHistogram.observe(['p', 'ok'], Infinity)).toThrow(TypeError);
    expect(() => h.bucketHistogram.observe(['p'], 1)).toThrow(/label values/);
    expect(
      () => new BucketHistogram({ name: 'x', help: 'x', labelNames: ['le'], buckets: [1], registers: [] }),
    ).toThrow(/reserved/);
  });

  it('keeps one series per combination of label values, whatever values share a prefix', () => {
    const h = both(['a', 'b']);
    const ab = h.bucketHistogram.seriesOf(['x', 'y']);
    expect(h.bucketHistogram.seriesOf(['x', 'y'])).toBe(ab);
    expect(h.bucketHistogram.seriesOf(['x', 'z'])).not.toBe(ab);
    expect(h.bucketHistogram.seriesOf(['xy', ''])).not.toBe(ab);
    expect(ab.labels).toEqual({ a: 'x', b: 'y' });
  });
});
