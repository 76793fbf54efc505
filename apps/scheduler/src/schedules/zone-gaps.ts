/** A spring-forward change of a time zone: the local times it skips. */
export interface Gap {
  /** The instant local time jumps forward. */
  at: Date;
  /** The skipped wall-clock times, as UTC milliseconds: [from, to). */
  wallFrom: number;
  wallTo: number;
}

const MINUTE_MS = 60_000;
/** No zone changes its offset twice within a day, so a day's step finds every jump (then bisected to the minute). */
const SCAN_STEP_MS = 24 * 60 * MINUTE_MS;
/**
 * Zone-years kept: every canonical zone (~600, jobs store canonical names) for the years a page of schedules looks
 * at; an entry is a few numbers. Past it the cache starts again.
 */
const CACHE_MAX = 20_000;

// A zone's jumps within one UTC calendar year, found once: a schedule's next five fires (a job's `upcoming_runs_at`)
// may look years ahead (`0 0 29 2 *`), and every job of a list page asks again.
const gapsByZoneYear = new Map<string, Gap[]>();

/** Forward jumps of the zone's UTC offset in (from, to]. */
export function gapsBetween(timezone: string, from: Date, to: Date): Gap[] {
  const gaps: Gap[] = [];
  for (let year = from.getUTCFullYear(); year <= to.getUTCFullYear(); year++) {
    for (const gap of gapsInYear(timezone, year)) {
      if (gap.at.getTime() > from.getTime() && gap.at.getTime() <= to.getTime()) gaps.push(gap);
    }
  }
  return gaps;
}

function gapsInYear(timezone: string, year: number): Gap[] {
  const key = `${timezone}\u0000${year}`;
  let gaps = gapsByZoneYear.get(key);
  if (!gaps) {
    if (gapsByZoneYear.size >= CACHE_MAX) gapsByZoneYear.clear();
    const from = Date.UTC(year, 0, 1);
    const to = Date.UTC(year + 1, 0, 1);
    // Most zones keep one offset all year (no daylight saving): the same offset at both ends and mid-year says so
    // without a scan. (A permanent change of a zone's standard offset inside such a year is not seen.)
    const steady = [from, Date.UTC(year, 6, 1), to - MINUTE_MS].map((t) => offsetMs(timezone, t));
    gaps = steady.every((o) => o === steady[0]) ? [] : scanGaps(timezone, from, to);
    gapsByZoneYear.set(key, gaps);
  }
  return gaps;
}

/** Forward jumps with their instant in (from, to], found by scanning then bisecting to the minute. */
function scanGaps(timezone: string, from: number, to: number): Gap[] {
  const gaps: Gap[] = [];
  let t = from;
  let offset = offsetMs(timezone, t);
  while (t < to) {
    const next = Math.min(t + SCAN_STEP_MS, to);
    const nextOffset = offsetMs(timezone, next);
    if (nextOffset > offset) {
      let lo = t;
      let hi = next;
      while (hi - lo > MINUTE_MS) {
        const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS || lo + MINUTE_MS;
        if (offsetMs(timezone, mid) > offset) hi = mid;
        else lo = mid;
      }
      const at = Math.ceil(hi / MINUTE_MS) * MINUTE_MS;
      gaps.push({ at: new Date(at), wallFrom: at + offset, wallTo: at + nextOffset });
    }
    t = next;
    offset = nextOffset;
  }
  return gaps;
}

/** One formatter per zone spelling; bounded like the zone-years (jobs store canonical names). */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset at an instant: its wall-clock time read as UTC, minus the instant. */
function offsetMs(timezone: string, at: number): number {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= 1_000) formatters.clear();
    formatters.set(timezone, f);
  }
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(at))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const wall = Date.UTC(
    parts['year']!,
    parts['month']! - 1,
    parts['day'],
    parts['hour'],
    parts['minute'],
    parts['second'],
  );
  return wall - Math.floor(at / 1000) * 1000;
}
