import { describe, expect, it } from 'vitest';
import { nextFireTimes } from './fire-times.js';

describe('nextFireTimes', () => {
  it('gives the next five times of a schedule in its time zone', () => {
    const after = new Date('2026-11-25T10:00:00.000Z');
    const result = nextFireTimes('30 2 * * *', 'Europe/Paris', after);
    expect(result.ok && result.times.map((t) => t.toISOString())).toEqual([
      '2026-11-26T01:30:00.000Z',
      '2026-11-27T01:30:00.000Z',
      '2026-11-28T01:30:00.000Z',
      '2026-11-29T01:30:00.000Z',
      '2026-11-30T01:30:00.000Z',
    ]);
  });

  it('says why a schedule cannot be read', () => {
    const result = nextFireTimes('61 * * * *', 'UTC', new Date());
    expect(result.ok).toBe(false);
  });
});
