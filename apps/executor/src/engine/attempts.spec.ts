import { jest } from '@jest/globals';
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
    // Timers faked (promises and immediates stay real) so that a limit left pending is counted, unref'd or not.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const run = new AbortController();
      await runAttempts(once(60_000), run.signal, hooks, (signal) => Promise.resolve(signal.aborted));
      await expect(
        runAttempts(once(60_000), run.signal, hooks, () => Promise.reject(new NodeFailure('flaky', true))),
      ).rejects.toThrow('flaky');
      expect(jest.getTimerCount()).toBe(0);
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
