import { describe, expect, it } from '@jest/globals';
import { FIRE_HORIZON_MS, nextFireTime, upcomingFireTimes } from './next-fire-time.js';

/** The fire times from `from` on, each computed from the previous one as BullMQ does. */
function fires(pattern: string, timezone: string, from: string, count: number): string[] {
  const out: string[] = [];
  let after = new Date(from);
  for (let i = 0; i < count; i++) {
    const next = nextFireTime(pattern, timezone, after);
    if (!next) break;
    out.push(next.toISOString());
    after = next;
  }
  return out;
}

describe('nextFireTime', () => {
  it('follows the schedule in its time zone', () => {
    expect(fires('15 9 * * 1-5', 'Europe/Paris', '2026-01-09T12:00:00.000Z', 2)).toEqual([
      '2026-01-12T08:15:00.000Z', // Monday 09:15 CET
      '2026-01-13T08:15:00.000Z',
    ]);
    expect(fires('*/20 * * * *', 'UTC', '2026-05-01T10:05:00.000Z', 3)).toEqual([
      '2026-05-01T10:20:00.000Z',
      '2026-05-01T10:40:00.000Z',
      '2026-05-01T11:00:00.000Z',
    ]);
  });

  // Europe/Paris springs forward on 2026-03-29: 02:00 CET becomes 03:00 CEST (01:00Z); 02:00-02:59 never happen.
  it('runs a local time that does not exist once, at the next valid minute (spring forward)', () => {
    expect(fires('30 2 * * *', 'Europe/Paris', '2026-03-28T12:00:00.000Z', 3)).toEqual([
      '2026-03-29T01:00:00.000Z', // 03:00 CEST, the first minute after the gap (cron-parser alone says 03:30)
      '2026-03-30T00:30:00.000Z', // 02:30 CEST again the next day
      '2026-03-31T00:30:00.000Z',
    ]);
    // Every minute of the skipped hour still gives a single run.
    expect(fires('*/15 2 * * *', 'Europe/Paris', '2026-03-28T23:00:00.000Z', 2)).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:00:00.000Z',
    ]);
    // A schedule at the first valid minute itself also runs once.
    expect(fires('0 3 * * *', 'Europe/Paris', '2026-03-28T23:00:00.000Z', 2)).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T01:00:00.000Z',
    ]);
  });

  // Europe/Paris falls back on 2026-10-25: 03:00 CEST becomes 02:00 CET (01:00Z); 02:00-02:59 happen twice.
  it('runs a local time that occurs twice once (fall back)', () => {
    expect(fires('30 2 * * *', 'Europe/Paris', '2026-10-24T12:00:00.000Z', 3)).toEqual([
      '2026-10-25T00:30:00.000Z', // 02:30 CEST, the first occurrence; 02:30 CET (01:30Z) does not run
      '2026-10-26T01:30:00.000Z',
      '2026-10-27T01:30:00.000Z',
    ]);
    expect(fires('*/30 2 * * *', 'Europe/Paris', '2026-10-24T23:00:00.000Z', 3)).toEqual([
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:00:00.000Z',
    ]);
  });

  it('leaves zones without a change alone and answers null for a date that never comes', () => {
    expect(fires('0 0 * * *', 'Asia/Tokyo', '2026-03-28T00:00:00.000Z', 1)).toEqual(['2026-03-28T15:00:00.000Z']);
    expect(nextFireTime('0 0 30 2 *', 'UTC', new Date('2026-01-01T00:00:00.000Z'))).toBeNull();
  });
});

describe('upcomingFireTimes', () => {
  const upcoming = (pattern: string, timezone: string, from: string, count = 5) =>
    upcomingFireTimes(pattern, timezone, new Date(from), count).map((d) => d.toISOString());

  // Europe/Berlin springs forward on 2027-03-28: 02:00 CET becomes 03:00 CEST (01:00Z).
  it('lists a local time in a spring-forward gap once, at the first minute after it', () => {
    expect(upcoming('30 2 * * *', 'Europe/Berlin', '2027-03-26T12:00:00.000Z')).toEqual([
      '2027-03-27T01:30:00.000Z', // 02:30 CET
      '2027-03-28T01:00:00.000Z', // 03:00 CEST: 02:30 does not exist that day
      '2027-03-29T00:30:00.000Z', // 02:30 CEST
      '2027-03-30T00:30:00.000Z',
      '2027-03-31T00:30:00.000Z',
    ]);
  });

  // America/New_York falls back on 2026-11-01: 02:00 EDT becomes 01:00 EST (06:00Z); 01:00-01:59 happen twice.
  it('lists a local time that occurs twice once (fall back)', () => {
    expect(upcoming('30 1 * * *', 'America/New_York', '2026-10-30T12:00:00.000Z')).toEqual([
      '2026-10-31T05:30:00.000Z', // 01:30 EDT
      '2026-11-01T05:30:00.000Z', // 01:30 EDT, the first occurrence; 01:30 EST (06:30Z) is not listed
      '2026-11-02T06:30:00.000Z', // 01:30 EST
      '2026-11-03T06:30:00.000Z',
      '2026-11-04T06:30:00.000Z',
    ]);
    expect(upcoming('*/30 1 * * *', 'America/New_York', '2026-11-01T04:00:00.000Z', 3)).toEqual([
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:00:00.000Z',
    ]);
  });

  it('gives the times nextFireTime gives one after the other', () => {
    const cases: [string, string, string][] = [
      ['*/15 2 * * *', 'Europe/Paris', '2026-03-28T23:00:00.000Z'],
      ['0 3 * * *', 'Europe/Paris', '2026-03-28T23:00:00.000Z'],
      ['*/30 2 * * *', 'Europe/Paris', '2026-10-24T23:00:00.000Z'],
      ['0,30 2,3 * * 0', 'Europe/Berlin', '2027-03-20T00:00:00.000Z'],
      ['15 9 * * 1-5', 'Australia/Lord_Howe', '2026-10-01T00:00:00.000Z'],
      ['0 0 29 2 *', 'UTC', '2026-01-01T00:00:00.000Z'],
    ];
    for (const [pattern, timezone, from] of cases) {
      expect(upcoming(pattern, timezone, from)).toEqual(fires(pattern, timezone, from, 5));
    }
  });

  it('lists fewer for a schedule that runs out of dates, none for one that never fires', () => {
    expect(upcoming('0 0 29 2 *', 'UTC', '2026-01-01T00:00:00.000Z', 2)).toEqual([
      '2028-02-29T00:00:00.000Z',
      '2032-02-29T00:00:00.000Z',
    ]);
    expect(upcoming('0 0 30 2 *', 'UTC', '2026-01-01T00:00:00.000Z')).toEqual([]);
  });

  it('answers none for a stored schedule no date matches; its horizon is past the longest wait of one that fires', () => {
    // Refused by the API now; jobs stored before may hold them. The exact check answers at once.
    expect(upcoming('* * 31 4,6,9,11 *', 'Europe/Paris', '2026-01-01T00:00:00.000Z')).toEqual([]);
    expect(nextFireTime('0 0 30,31 2 *', 'America/New_York', new Date('2026-01-01T00:00:00.000Z'))).toBeNull();
    // A form the exact check does not read (`?`): cron-parser's search ends at the horizon instead of its loop limit.
    expect(upcoming('0 0 31 4,6,9,11 ?', 'UTC', '2026-01-01T00:00:00.000Z')).toEqual([]);
    // The horizon is past the longest wait of a schedule that fires: 29 February 2096, then 2104 (2100 is no leap year).
    expect(FIRE_HORIZON_MS).toBeGreaterThan(
      Date.parse('2104-02-29T00:00:00.000Z') - Date.parse('2096-03-01T00:00:00Z'),
    );
    expect(fires('0 0 29 2 *', 'UTC', '2096-03-01T00:00:00.000Z', 2)).toEqual([
      '2104-02-29T00:00:00.000Z',
      '2108-02-29T00:00:00.000Z',
    ]);
  });
});
