import { getEventListeners } from 'node:events';
import { DEFAULT_NODE_TIMEOUT_S, RunAborted, policyOf, runAttempts } from './attempts.js';
import { NodeFailure } from './node-failure.js';

describe('policyOf', () => {
  it("takes the node's timeout_seconds and retries", () => {
    expect(policyOf({ timeout_seconds: 1.5, retries: 2 }, 200)).toEqual({
      timeoutMs: 1500,
      retries: 2,
      backoffBaseMs: 200,
    });
  });

  it('gives a node without timeout_seconds the longest one a node may set, a day, so no run runs for ever', () => {
    expect(DEFAULT_NODE_TIMEOUT_S).toBe(86_400);
    expect(policyOf({}, 200).timeoutMs).toBe(86_400_000);
    expect(policyOf({ timeout_seconds: 'soon' }, 200).timeoutMs).toBe(86_400_000);
  });
});

describe('runAttempts', () => {
  const hooks = { onAttempt: () => undefined, onRetry: () => undefined };
  const once = (timeoutMs: number) => ({ timeoutMs, retries: 0, backoffBaseMs: 1 });
  const untilAborted = (signal: AbortSignal) =>
    new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));

  it("stops an attempt at its time limit with a retryable 'timeout' failure", async () => {
    const run = new AbortController();
    const failure = await runAttempts(once(20), run.signal, hooks, untilAborted).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(NodeFailure);
    expect(failure).toMatchObject({ message: 'timed out after 0.02 s', retryable: true, code: 'timeout' });
  });

  it("stops an attempt when the run's signal aborts, with the run's reason", async () => {
    const run = new AbortController();
    const outcome = runAttempts(once(60_000), run.signal, hooks, untilAborted).catch((err: unknown) => err);
    run.abort('canceled');
    const failure = await outcome;
    expect(failure).toBeInstanceOf(RunAborted);
    expect((failure as RunAborted).reason).toBe('canceled');
  });

  it("leaves no listener on the run's signal and no timer once the attempts end", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const timersBefore = timers();
    const run = new AbortController();
    await runAttempts(once(60_000), run.signal, hooks, async (signal) => {
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(1);
      return signal.aborted;
    });
    await expect(
      runAttempts({ timeoutMs: 60_000, retries: 2, backoffBaseMs: 1 }, run.signal, hooks, () =>
        Promise.reject(new NodeFailure('flaky', true)),
      ),
    ).rejects.toThrow('flaky');
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    // A day-long limit left behind would hold the event loop's active handles.
    expect(timers()).toBe(timersBefore);
  });
});
