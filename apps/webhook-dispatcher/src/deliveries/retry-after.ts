/** The longest Retry-After honoured: a receiver cannot park a delivery for longer than a day. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/** A Retry-After header (delay-seconds or an HTTP-date) as a delay in ms from `now`; null when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: Date): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}

/**
 * The delay before the retry that follows attempt `attempt` (1-based), or null when the schedule is exhausted.
 * A longer Retry-After wins over the schedule; a shorter one does not hasten it.
 */
export function nextRetryDelay(schedule: readonly number[], attempt: number, retryAfter: number | null): number | null {
  const planned = schedule[attempt - 1];
  if (planned === undefined) return null;
  return retryAfter !== null && retryAfter > planned ? retryAfter : planned;
}
