import { describe, expect, it } from '@jest/globals';
import { MAX_RETRY_AFTER_MS, nextRetryDelay, retryAfterMs } from './retry-after.js';

describe('Retry-After', () => {
  const now = new Date('2026-01-01T00:00:00.000Z');

  it('reads seconds and HTTP dates, capped at a day', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('999999999', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs(undefined, now)).toBeNull();
    expect(retryAfterMs('soon', now)).toBeNull();
  });

  it('follows the schedule, unless Retry-After asks for longer, and stops at its end', () => {
    const schedule = [5000, 300_000];
    expect(nextRetryDelay(schedule, 1, null)).toBe(5000);
    expect(nextRetryDelay(schedule, 1, 60_000)).toBe(60_000);
    expect(nextRetryDelay(schedule, 2, 1000)).toBe(300_000);
    expect(nextRetryDelay(schedule, 3, null)).toBeNull();
  });
});
