/** What the limiter decided for one request; the response headers are drawn from it. */
export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the quota is whole again. */
  reset_s: number;
  /** Seconds to wait before the next request can pass; 0 when allowed. */
  retry_after_s: number;
  /** Allowed without counting: Redis was unavailable (the limiter fails open). */
  unmetered?: true;
}
