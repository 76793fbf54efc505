import { Counter } from 'prom-client';
import { createMetricsRegistry } from './metrics.js';

// One sample line of the Prometheus text format: name, optional labels, value. Prometheus parses
// values with Go's ParseFloat, which accepts NaN/Inf in any case (prom-client writes "Nan").
const SAMPLE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (-?[0-9.e+-]+|nan|[+-]inf)$/i;

describe('createMetricsRegistry', () => {
  it('exposes default metrics in valid text format, each labelled with the service', async () => {
    const registry = createMetricsRegistry('catalog');
    const text = await registry.metrics();
    const samples = text.split('\n').filter((line) => line.length > 0 && !line.startsWith('#'));
    expect(samples.length).toBeGreaterThan(10);
    for (const line of samples) {
      expect(line).toMatch(SAMPLE);
      expect(line).toContain('service="catalog"');
    }
    expect(text).toMatch(/^# TYPE process_cpu_user_seconds_total counter$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds\{service="catalog"\} /m);
  });

  it('keeps registries apart and labels custom metrics too', async () => {
    const a = createMetricsRegistry('a');
    const b = createMetricsRegistry('b');
    const runs = new Counter({ name: 'conduit_runs_total', help: 'Runs', registers: [a] });
    runs.inc(2);
    expect(await a.metrics()).toMatch(/^conduit_runs_total\{service="a"\} 2$/m);
    expect(await b.metrics()).not.toContain('conduit_runs_total');
  });
});
