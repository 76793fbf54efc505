/**
 * Runs a driver's Test Connection steps in order under one deadline, stopping at the first failure.
 * Shared by every driver so that results look the same whatever the connector type.
 */
import { scrubbedValue, secretScrubber } from './secret-scrub.js';
import type { ErrorClass, TestCheck, TestResult } from './types.js';

export const DEFAULT_TEST_TIMEOUT_MS = 10_000;
const CLEANUP_WAIT_MS = 1_000;

export interface CheckStep {
  name: string;
  /**
   * Performs the step and answers a short success message. `signal` aborts at the deadline or when the caller
   * cancels: the step must then release what it holds (sockets, clients). The runner does not wait for it.
   */
  run(signal: AbortSignal): Promise<string>;
}

export interface CheckPlan {
  steps: readonly CheckStep[];
  /** Turns a step's failure into a class and a message for the user. */
  classify(err: unknown): { error_class: ErrorClass; message: string };
  /** Filled by the steps (e.g. `server_version`) and answered as `details`. */
  details: Record<string, unknown>;
  /** Values scrubbed from every message, whatever a server or library put in it. */
  secrets: readonly string[];
  /** Releases whatever the steps left open; called once, after the last step, errors ignored. */
  cleanup?: () => Promise<void> | void;
  successMessage(details: Record<string, unknown>): string;
}

export interface RunChecksOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

class DeadlineExceeded extends Error {}

/** Never throws: every failure is described in the result. */
export async function runChecks(plan: CheckPlan, opts: RunChecksOptions = {}): Promise<TestResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TEST_TIMEOUT_MS;
  const started = performance.now();
  const deadline = AbortSignal.timeout(Math.max(1, timeoutMs));
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  const scrub = secretScrubber(plan.secrets);
  const checks: TestCheck[] = [];
  let failure: { error_class: ErrorClass; message: string } | null = null;

  for (const step of plan.steps) {
    const stepStarted = performance.now();
    try {
      const message = await raceAbort(step.run(signal), signal);
      checks.push({ name: step.name, ok: true, latency_ms: elapsed(stepStarted), message: scrub(message) });
    } catch (err) {
      failure = abortFailure(err, signal, opts.signal, timeoutMs) ?? plan.classify(err);
      failure = { error_class: failure.error_class, message: scrub(failure.message) };
      checks.push({ name: step.name, ok: false, latency_ms: elapsed(stepStarted), message: failure.message });
      break;
    }
  }
  // Cleanup is best effort and may not stretch the test past its deadline: the result is already decided.
  const cleanup = Promise.resolve()
    .then(plan.cleanup)
    .catch(() => undefined);
  const remainingMs = Math.min(CLEANUP_WAIT_MS, timeoutMs - elapsed(started));
  if (remainingMs > 0) await raceAbort(cleanup, AbortSignal.timeout(remainingMs)).catch(() => undefined);

  return {
    ok: failure === null,
    latency_ms: elapsed(started),
    message: failure ? failure.message : scrub(plan.successMessage(plan.details)),
    error_class: failure ? failure.error_class : null,
    checks,
    // What the server answered (its version, its models) may echo a credential as well as a message may.
    details: scrubbedValue(plan.details, scrub),
    tested_at: new Date().toISOString(),
  };
}

function abortFailure(
  err: unknown,
  signal: AbortSignal,
  callerSignal: AbortSignal | undefined,
  timeoutMs: number,
): { error_class: ErrorClass; message: string } | null {
  if (!signal.aborted && !(err instanceof DeadlineExceeded)) return null;
  if (callerSignal?.aborted) return { error_class: 'transient_error', message: 'test canceled' };
  return { error_class: 'transient_error', message: `timed out: no answer within ${timeoutMs} ms` };
}

/** Settles with `work`, or rejects as soon as `signal` aborts (a step that ignores its signal cannot hold us up). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(new DeadlineExceeded());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DeadlineExceeded());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function elapsed(since: number): number {
  return Math.round(performance.now() - since);
}
