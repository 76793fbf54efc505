import { runChecks, type CheckPlan, type CheckStep } from './connection-checks.js';

function plan(steps: CheckStep[], secrets: string[] = []): CheckPlan {
  return {
    steps,
    classify: (err) => ({ error_class: 'config_error', message: (err as Error).message }),
    details: {},
    secrets,
    successMessage: () => 'all good',
  };
}

const ok = (name: string): CheckStep => ({ name, run: async () => `${name} ok` });

describe('runChecks', () => {
  it('runs every step in order and succeeds', async () => {
    const result = await runChecks(plan([ok('a'), ok('b')]));
    expect(result).toMatchObject({ ok: true, message: 'all good', error_class: null });
    expect(result.checks.map((c) => [c.name, c.ok, c.message])).toEqual([
      ['a', true, 'a ok'],
      ['b', true, 'b ok'],
    ]);
    expect(result.tested_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('stops at the first failure, lists no later step, and scrubs secrets', async () => {
    const failing: CheckStep = { name: 'b', run: async () => Promise.reject(new Error('bad pw s3cr3t-pw!')) };
    const result = await runChecks(plan([ok('a'), failing, ok('c')], ['s3cr3t-pw!']));
    expect(result).toMatchObject({ ok: false, error_class: 'config_error', message: 'bad pw ********' });
    expect(result.checks.map((c) => [c.name, c.ok])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });

  it('scrubs secrets from the details a server answered (its version, its model ids)', async () => {
    const steps: CheckPlan = plan([ok('a')], ['s3cr3t-pw!']);
    steps.details['server_version'] = 'S3CR3T-PW!';
    steps.details['models'] = ['m', 'Bearer s3cr3t-pw!'];
    const result = await runChecks(steps);
    expect(result.details).toEqual({ server_version: '********', models: ['m', 'Bearer ********'] });
  });

  it('ends at the deadline even when a step ignores its signal', async () => {
    let sawAbort = false;
    const hanging: CheckStep = {
      name: 'hang',
      run: (signal) => {
        signal.addEventListener('abort', () => (sawAbort = true));
        return new Promise<string>(() => undefined);
      },
    };
    const started = Date.now();
    const result = await runChecks(plan([hanging]), { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result).toMatchObject({
      ok: false,
      error_class: 'transient_error',
      message: 'timed out: no answer within 300 ms',
    });
    expect(sawAbort).toBe(true);
  });

  it('reports a cancel by the caller', async () => {
    const controller = new AbortController();
    const hanging: CheckStep = { name: 'hang', run: () => new Promise<string>(() => undefined) };
    setTimeout(() => controller.abort(), 50);
    const result = await runChecks(plan([hanging]), { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, error_class: 'transient_error', message: 'test canceled' });
  });
});
