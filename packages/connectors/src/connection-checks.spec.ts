import { runChecks, scrubSecrets, WITHHELD_MESSAGE, type CheckPlan, type CheckStep } from './connection-checks.js';

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

describe('scrubSecrets', () => {
  it('masks a long secret where it stands', () => {
    expect(scrubSecrets('auth failed for key sk-live-0123456789 (sk-live-0123456789)', ['sk-live-0123456789'])).toBe(
      'auth failed for key ******** (********)',
    );
  });

  it('withholds the whole text when a short secret occurs, rather than spelling it out by masking', () => {
    const text = 'database "nodb_xyz" does not exist (SQLSTATE 3D000)';
    expect(scrubSecrets(text, ['x'])).toBe(WITHHELD_MESSAGE);
    expect(scrubSecrets(text, ['x'])).not.toContain('x');
    expect(scrubSecrets('Connection terminated unexpectedly', ['pw1'])).toBe('Connection terminated unexpectedly');
  });

  it('masks a secret in the forms a server echoes it: JSON-escaped, percent-encoded, in any case', () => {
    const secret = 'QuoTe"Secret\\Value12345';
    const echoed = JSON.stringify({ 'x-token': secret });
    expect(echoed).toContain('QuoTe\\"Secret\\\\Value12345');
    expect(scrubSecrets(`echo: ${echoed}`, [secret])).toBe('echo: {"x-token":"********"}');
    expect(scrubSecrets('authorization: bearer toktoksecretvalue42', ['TokTokSecretValue42'])).toBe(
      'authorization: bearer ********',
    );
    expect(scrubSecrets(`GET /?key=${encodeURIComponent('p@ss word/1')}`, ['p@ss word/1'])).toBe('GET /?key=********');
    expect(scrubSecrets('Short PW1 echoed', ['pw1'])).toBe(WITHHELD_MESSAGE);
  });

  it('leaves a text without secrets alone, whatever their length', () => {
    expect(scrubSecrets('connection refused', ['', 'a-long-secret-value', 'zz'])).toBe('connection refused');
  });
});
