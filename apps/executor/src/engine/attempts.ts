/** Runs one node with its `timeout_seconds` per attempt and `retries` with exponential backoff. */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { NodeFailure, toNodeFailure } from './node-failure.js';
import { StrandedStatement } from '../data/interrupts.js';

/**
 * A node that sets no `timeout_seconds` gets the most one may set (api.md: a run never stays `running` for ever): a
 * statement that never ends, or one tenant's query holding a slot, is stopped after a day like any timeout.
 */
export const DEFAULT_NODE_TIMEOUT_S = 86_400;

export interface AttemptPolicy {
  /** Per attempt. */
  timeoutMs: number;
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
    timeoutMs: Math.round((typeof timeout === 'number' && timeout > 0 ? timeout : DEFAULT_NODE_TIMEOUT_S) * 1000),
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
    const limit = new AttemptSignal(runSignal, policy.timeoutMs);
    let failure: NodeFailure;
    try {
      return await work(limit.signal);
    } catch (err) {
      if (runSignal.aborted) throw new RunAborted(runSignal.reason);
      failure = limit.timedOut ? timedOut(policy.timeoutMs, err) : toNodeFailure(err);
    } finally {
      limit.done();
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

/**
 * A timed-out attempt's failure. One whose statement would not stop is not tried again: it holds a core until the
 * executor restarts (data/interrupts.ts), and another attempt would hold one more.
 */
function timedOut(timeoutMs: number, err: unknown): NodeFailure {
  const after = `timed out after ${timeoutMs / 1000} s`;
  if (err instanceof StrandedStatement) return new NodeFailure(`${after}; ${err.message}`, false, 'timeout');
  return new NodeFailure(after, true, 'timeout');
}

/**
 * One attempt's signal: aborted by the run's signal or once `timeoutMs` has passed, until `done`, which frees both.
 * One controller, a listener and a timer cleared at the end, rather than AbortSignal.timeout and AbortSignal.any: those
 * leave a day-long timer to a finalizer and build two more signals at every attempt of every node (issue 18).
 */
class AttemptSignal {
  readonly signal: AbortSignal;
  timedOut = false;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onRunAbort: () => void;

  constructor(
    private readonly runSignal: AbortSignal,
    timeoutMs: number,
  ) {
    this.signal = this.controller.signal;
    this.onRunAbort = () => this.controller.abort(runSignal.reason);
    // A run's nodes in parallel each listen while they run (EXECUTOR_NODE_PARALLELISM, up to 64): not a leak.
    setMaxListeners(0, runSignal);
    runSignal.addEventListener('abort', this.onRunAbort, { once: true });
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, timeoutMs);
    // As AbortSignal.timeout's: a node's time limit alone never keeps the process up.
    this.timer.unref();
  }

  done(): void {
    clearTimeout(this.timer);
    this.runSignal.removeEventListener('abort', this.onRunAbort);
  }
}
