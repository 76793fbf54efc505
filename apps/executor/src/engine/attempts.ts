/** Runs one node with its `timeout_seconds` per attempt and `retries` with exponential backoff. */
import { setTimeout as sleep } from 'node:timers/promises';
import { NodeFailure, toNodeFailure } from './node-failure.js';

export interface AttemptPolicy {
  /** Per attempt; undefined: no limit. */
  timeoutMs: number | undefined;
  /** Attempts after the first. */
  retries: number;
  /** Wait before retry n (from 1) is baseMs * 2^(n-1). */
  backoffBaseMs: number;
}

export class RunAborted extends Error {
  constructor(readonly reason: unknown) {
    super('run aborted');
    this.name = 'RunAborted';
  }
}

export function policyOf(config: Record<string, unknown>, backoffBaseMs: number): AttemptPolicy {
  const timeout = config['timeout_seconds'];
  const retries = config['retries'];
  return {
    timeoutMs: typeof timeout === 'number' && timeout > 0 ? Math.round(timeout * 1000) : undefined,
    retries: typeof retries === 'number' && Number.isInteger(retries) && retries > 0 ? Math.min(retries, 10) : 0,
    backoffBaseMs,
  };
}

export interface AttemptHooks {
  onAttempt(attempt: number): void;
  onRetry(attempt: number, failure: NodeFailure, delayMs: number): void;
}

/**
 * Resolves with the work's result, or rejects with a NodeFailure (the last attempt's) or RunAborted when the run's
 * signal aborts, whichever attempt it is in.
 */
export async function runAttempts<T>(
  policy: AttemptPolicy,
  runSignal: AbortSignal,
  hooks: AttemptHooks,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (runSignal.aborted) throw new RunAborted(runSignal.reason);
    hooks.onAttempt(attempt);
    const timeout = policy.timeoutMs === undefined ? undefined : AbortSignal.timeout(policy.timeoutMs);
    const signal = timeout ? AbortSignal.any([runSignal, timeout]) : runSignal;
    let failure: NodeFailure;
    try {
      return await work(signal);
    } catch (err) {
      if (runSignal.aborted) throw new RunAborted(runSignal.reason);
      failure = timeout?.aborted
        ? new NodeFailure(`timed out after ${policy.timeoutMs! / 1000} s`, true, 'timeout')
        : toNodeFailure(err);
    }
    if (!failure.retryable || attempt > policy.retries) throw failure;
    const delayMs = policy.backoffBaseMs * 2 ** (attempt - 1);
    hooks.onRetry(attempt, failure, delayMs);
    try {
      await sleep(delayMs, undefined, { signal: runSignal });
    } catch {
      throw new RunAborted(runSignal.reason);
    }
  }
}
