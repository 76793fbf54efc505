// `conduit run` against the stub API: flags checked before the trigger, -p typing, what --follow says when it stops.
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { conduit, runOf, StubApi } from './stub-api.js';

let api: StubApi;
let env: Record<string, string>;
beforeEach(async () => {
  api = await new StubApi().start();
  env = { CONDUIT_URL: api.url, CONDUIT_API_KEY: 'cnd_test' };
  api.add('jobs', { name: 'nightly', pipeline_id: 'pln_00000000000000000000000001' });
});
afterEach(() => api.close());

const triggers = () => api.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/run'));

describe('a bad flag of run', () => {
  it.each([
    [['--follow', '--timeout', 'abc'], '--timeout takes seconds (got "abc")'],
    [['--timeout', '-1'], '--timeout takes seconds'],
    [['-p', 'day'], '--param takes key=value (got "day")'],
  ])('%j is refused before any request: no run is started', async (flags, message) => {
    const result = await conduit(['run', 'nightly', ...flags], env);
    expect(result).toMatchObject({ code: 2, stderr: expect.stringContaining(message) });
    expect(api.requests).toEqual([]);
  });
});

describe('-p key=value', () => {
  it('takes one pair per occurrence, so the job may come after it', async () => {
    const result = await conduit(['run', '-p', 'a=1', '-p', 'b=x', 'nightly'], env);
    expect(result.code).toBe(0);
    expect(triggers()[0]?.body).toEqual({ parameters: { a: 1, b: 'x' } });
  });

  it('types a value that reads as JSON, a number only when it is exact', async () => {
    const pairs = ['n=1', 'f=0.5', 'flag=true', 'list=[1,2]', 'big=12345678901234567890', 'one=1.0', 'day=2024-01-02'];
    await conduit(['run', 'nightly', ...pairs.flatMap((p) => ['-p', p])], env);
    expect(triggers()[0]?.body).toEqual({
      parameters: {
        n: 1,
        f: 0.5,
        flag: true,
        list: [1, 2],
        big: '12345678901234567890',
        one: '1.0',
        day: '2024-01-02',
      },
    });
  });
});

describe('run --follow that stops before the run ends', () => {
  const note =
    'run run_00000000000000000000000001 keeps running; to stop it: conduit cancel run_00000000000000000000000001 --job job_00000000000000000000000001';

  it('on --timeout, says the run keeps running and how to cancel it', async () => {
    api.run = runOf('running');
    const result = await conduit(['run', 'nightly', '--follow', '--timeout', '0.2'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(note);
  });

  it('on Ctrl-C, says the same and exits 130', async () => {
    api.run = runOf('running');
    const exit = jest.spyOn(process, 'exit').mockImplementation(() => {
      // The run keeps being polled in this test: end it as the process would have ended.
      api.run = runOf('canceled');
      return undefined as never;
    });
    try {
      const pending = conduit(['run', 'nightly', '--follow'], env);
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.emit('SIGINT', 'SIGINT');
      const result = await pending;
      expect(exit).toHaveBeenCalledWith(130);
      expect(result.stderr).toContain(note);
    } finally {
      exit.mockRestore();
    }
  });
});
