import type { RateLimitResult } from './rate-limit-result.js';

/**
 * Response headers per the IETF httpapi ratelimit-headers draft (structured fields):
 * `RateLimit-Policy: "default";q=600;w=60`, `RateLimit: "default";r=599;t=42`, and
 * `Retry-After` (seconds) on a refusal.
 */
export function headersFor(result: RateLimitResult): Record<string, string> {
  // Nothing was counted: claiming a quota would be a guess.
  if (result.unmetered) return {};
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"default";q=${result.limit};w=60`,
    RateLimit: `"default";r=${result.remaining};t=${result.reset_s}`,
  };
  if (!result.allowed) headers['Retry-After'] = String(result.retry_after_s);
  return headers;
}
