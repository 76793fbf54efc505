import { unavailableDependencyOf } from '../errors/dependency-errors.js';

/** One dependency the service needs before it can take traffic (database, Redis, ...). */
export interface ReadinessCheck {
  /** Key in the `/readyz` answer, e.g. `db`. */
  name: string;
  /** Resolves when the dependency answers; rejects (or times out) when it does not. */
  check(): Promise<void>;
}

export interface ReadinessReport {
  status: 'ok' | 'unavailable';
  /** `ok`, or `error: <reason>` per check. */
  checks: Record<string, string>;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 2000;

/** Runs every check concurrently, each bounded by `timeoutMs`. */
export async function runReadinessChecks(
  checks: readonly ReadinessCheck[],
  timeoutMs: number = DEFAULT_CHECK_TIMEOUT_MS,
): Promise<ReadinessReport> {
  const outcomes = await Promise.all(
    checks.map(async (check) => {
      try {
        await withTimeout(check.check(), timeoutMs);
        return [check.name, 'ok'] as const;
      } catch (err) {
        // An unreachable dependency's message names its address (connect ECONNREFUSED host:port); /readyz is public
        // on the gateway, so it says `unreachable` instead. The clients' own error logs keep the address.
        const reason = unavailableDependencyOf(err) ? 'unreachable' : err instanceof Error ? err.message : String(err);
        return [check.name, `error: ${reason}`] as const;
      }
    }),
  );
  const failed = outcomes.some(([, outcome]) => outcome !== 'ok');
  return { status: failed ? 'unavailable' : 'ok', checks: Object.fromEntries(outcomes) };
}

async function withTimeout(work: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
