// When and how long to wait before trying a request again: 429 and 503 (and 409 idempotency_in_progress, which
// asks for it) honouring Retry-After, and a dropped connection for a request that is safe to send twice.

/** How the client retries; every field has a default. */
export interface RetryOptions {
  /** Attempts in all, the first included; 1 turns retries off. Default 4. */
  maxAttempts?: number;
  /** The first backoff's ceiling when the server gave no Retry-After; doubles per attempt. Default 250 ms. */
  baseDelayMs?: number;
  /** No single wait is longer: a Retry-After beyond it is not waited for, the answer is returned as is. Default 30 s. */
  maxDelayMs?: number;
  /** Statuses retried. Default 429 and 503. */
  statuses?: readonly number[];
}

export type RetryPolicy = Required<RetryOptions>;

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const policy = {
    maxAttempts: options.maxAttempts ?? 4,
    baseDelayMs: options.baseDelayMs ?? 250,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    statuses: options.statuses ?? [429, 503],
  };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1)
    throw new RangeError('retry.maxAttempts must be an integer >= 1');
  if (policy.baseDelayMs < 0 || policy.maxDelayMs < 0) throw new RangeError('retry delays must be >= 0');
  return policy;
}

/** Retry-After as milliseconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * How long to wait before attempt `attempt + 1` (attempt counts from 1), or undefined to give up. A Retry-After is
 * honoured with up to 10% jitter on top (many clients told "1 s" must not return in the same millisecond); without
 * one, "full jitter" exponential backoff.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
  random = Math.random,
): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > policy.maxDelayMs) return undefined;
    return Math.min(policy.maxDelayMs, Math.round(retryAfterMs * (1 + 0.1 * random())));
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling * random());
}

/** A status this policy retries; a 409 only when it is `idempotency_in_progress` (the server asks for the retry). */
export function isRetriedStatus(policy: RetryPolicy, status: number, problemCode: string | undefined): boolean {
  return policy.statuses.includes(status) || (status === 409 && problemCode === 'idempotency_in_progress');
}
