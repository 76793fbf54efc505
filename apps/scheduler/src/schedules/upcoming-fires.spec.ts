import { describe, expect, it } from '@jest/globals';
import { upcomingFireTimes } from './next-fire-time.js';
import { UPCOMING_FIRES, UPCOMING_WITHIN_MS, upcomingFires } from './upcoming-fires.js';

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

describe('upcomingFires', () => {
  it('answers the next five fire times, and the same ones until the first has passed', () => {
    const now = new Date('2027-03-26T12:00:00.000Z');
    const first = upcomingFires('30 2 * * *', 'Europe/Berlin', now);
    expect(first).toHaveLength(UPCOMING_FIRES);
    expect(first).toEqual(iso(upcomingFireTimes('30 2 * * *', 'Europe/Berlin', now, UPCOMING_FIRES)));
    expect(upcomingFires('30 2 * * *', 'Europe/Berlin', new Date('2027-03-27T01:29:59.999Z'))).toEqual(first);

    // At the first time itself, the list moves on by one.
    const moved = upcomingFires('30 2 * * *', 'Europe/Berlin', new Date(first[0]!));
    expect(moved.slice(0, 4)).toEqual(first.slice(1));
    expect(moved[4]).toBe('2027-04-01T00:30:00.000Z');
    // An earlier moment than the cached one is computed for itself.
    expect(upcomingFires('30 2 * * *', 'Europe/Berlin', new Date('2027-03-25T12:00:00.000Z'))[0]).toBe(
      '2027-03-26T01:30:00.000Z',
    );
  });

  it('tells schedules apart by their time zone', () => {
    const now = new Date('2026-10-30T12:00:00.000Z');
    expect(upcomingFires('30 1 * * *', 'America/New_York', now)[0]).toBe('2026-10-31T05:30:00.000Z');
    expect(upcomingFires('30 1 * * *', 'UTC', now)[0]).toBe('2026-10-31T01:30:00.000Z');
  });

  it('reads every spelling of a zone as that zone', () => {
    const now = new Date('2026-10-30T12:00:00.000Z');
    expect(upcomingFires('30 1 * * *', 'america/new_york', now)).toEqual(
      upcomingFires('30 1 * * *', 'America/New_York', now),
    );
  });

  it('keeps an answer of no fire at all like any other', () => {
    const now = new Date('2026-11-25T00:00:00.000Z');
    const never = upcomingFires('0 0 31 4,6,9,11 ?', 'Europe/Paris', now);
    expect(never).toEqual([]);
    // The same answer, not computed again (a search that finds nothing is the costly one).
    expect(upcomingFires('0 0 31 4,6,9,11 ?', 'Europe/Paris', new Date(now.getTime() + 3_600_000))).toBe(never);
    expect(upcomingFires('0 0 31 4,6,9,11 ?', 'Europe/Paris', new Date(now.getTime() + 2 * 86_400_000))).not.toBe(
      never,
    );
  });

  it('lists the fires of a rare schedule only within two years of its first', () => {
    const now = new Date('2026-11-25T00:00:00.000Z');
    // 29 February: 2028, then 2032 (past the window), so one time; next_run_at's own computation is unbounded.
    expect(upcomingFires('0 0 29 2 *', 'Europe/Berlin', now)).toEqual(['2028-02-28T23:00:00.000Z']);
    expect(iso(upcomingFireTimes('0 0 29 2 *', 'Europe/Berlin', now, 2))).toEqual([
      '2028-02-28T23:00:00.000Z',
      '2032-02-28T23:00:00.000Z',
    ]);
    // Yearly: the first and the next two years' (within 2 x 366 days of the first).
    expect(upcomingFires('0 9 1 1 *', 'UTC', now)).toEqual([
      '2027-01-01T09:00:00.000Z',
      '2028-01-01T09:00:00.000Z',
      '2029-01-01T09:00:00.000Z',
    ]);
    // Also when the first is a time the spring-forward change skips (28 March 2027 is the change's Sunday in Paris):
    // the window runs from it, not from the first regular fire a year later.
    const yearly = upcomingFires('30 2 28 3 *', 'Europe/Paris', now);
    expect(yearly[0]).toBe('2027-03-28T01:00:00.000Z');
    expect(yearly.every((at) => Date.parse(at) - Date.parse(yearly[0]!) <= UPCOMING_WITHIN_MS)).toBe(true);
    expect(yearly).toHaveLength(3);
  });
});
