import { runReadinessChecks } from './readiness.js';

describe('runReadinessChecks', () => {
  it('reports ok when every check passes', async () => {
    const report = await runReadinessChecks([
      { name: 'db', check: async () => undefined },
      { name: 'redis', check: async () => undefined },
    ]);
    expect(report).toEqual({ status: 'ok', checks: { db: 'ok', redis: 'ok' } });
  });

  it('reports each failure and times out a hanging check', async () => {
    const started = Date.now();
    const report = await runReadinessChecks(
      [
        { name: 'db', check: async () => undefined },
        { name: 'redis', check: () => Promise.reject(new Error('ECONNREFUSED')) },
        { name: 'slow', check: () => new Promise<void>(() => undefined) },
        {
          name: 'pg',
          check: () =>
            Promise.reject(Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' })),
        },
      ],
      150,
    );
    expect(report).toEqual({
      status: 'unavailable',
      // The unreachable server's address stays out of the report.
      checks: {
        db: 'ok',
        redis: 'error: ECONNREFUSED',
        slow: 'error: timed out after 150 ms',
        pg: 'error: unreachable',
      },
    });
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
