import { Histogram, Registry } from 'prom-client';
import { labelledObserver } from './labelled-observer.js';

describe('labelledObserver', () => {
  it('records each observation in the series of its label values, as observe(labels, value) would', async () => {
    const registry = new Registry();
    const histogram = new Histogram({
      name: 't_seconds',
      help: 't',
      labelNames: ['method', 'status'],
      buckets: [1],
      registers: [registry],
    });
    const observe = labelledObserver(histogram);
    observe(['GET', '200'], 0.5);
    observe(['GET', '200'], 2);
    observe(['POST', '201'], 0.25);
    const { values } = await histogram.get();
    const count = (method: string, status: string) =>
      values.find(
        (v) => v.metricName === 't_seconds_count' && v.labels['method'] === method && v.labels['status'] === status,
      )?.value;
    const sum = (method: string) =>
      values.find((v) => v.metricName === 't_seconds_sum' && v.labels['method'] === method)?.value;
    expect([count('GET', '200'), count('POST', '201'), count('GET', '201')]).toEqual([2, 1, undefined]);
    expect([sum('GET'), sum('POST')]).toEqual([2.5, 0.25]);
  });
});
