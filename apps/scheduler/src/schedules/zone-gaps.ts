/**
 * A change of a time zone's UTC offset. Forward (spring forward), it skips the local times [at + before,
 * at + after); back (fall back), the local times [at + after, at + before) happen twice.
 */
export interface Transition {
  /** The instant the offset changes, UTC milliseconds. */
  at: number;
  /** The offsets (milliseconds) before `at` and from `at` on. */
  before: number;
  after: number;
}

const MINUTE_MS = 60_000;
export const DAY_MS = 24 * 60 * MINUTE_MS;
/** No zone changes its offset twice within a day, so a day's step finds every change (then bisected to the minute). */
const SCAN_STEP_MS = DAY_MS;
/** No zone keeps an offset for less than a week (Morocco's Ramadan change, inside a year, lasts a month). */
const STEADY_SAMPLE_MS = 7 * DAY_MS;
/**
 * Zone-years kept: every canonical zone (~600, jobs store canonical names) for the years a page of schedules looks
 * at; an entry is a few numbers. Past it the cache starts again.
 */
const CACHE_MAX = 20_000;

// A zone's changes within one UTC calendar year, found once: a schedule's next five fires (a job's `upcoming_runs_at`)
// may look years ahead (`0 0 29 2 *`), and every fire of every job of a list page asks again.
const transitionsByZoneYear = new Map<string, Transition[]>();

/** The zone's offset changes with their instant in (from, to]. */
export function transitionsBetween(timezone: string, from: number, to: number): Transition[] {
  const found: Transition[] = [];
  for (let year = new Date(from).getUTCFullYear(); year <= new Date(to).getUTCFullYear(); year++) {
    for (const t of transitionsInYear(timezone, year)) if (t.at > from && t.at <= to) found.push(t);
  }
  return found;
}

/**
 * The instant a local wall-clock time (its fields written as UTC, in ms) fires at: its only instant; the first of
 * the two when a fall-back change repeats it; the instant of the change when a spring-forward change skips it (the
 * first valid minute after the gap).
 */
export function instantOfWallTime(timezone: string, wall: number): number {
  // An instant's offset is under a day either way, so only the changes within a day of `wall` decide its instant.
  const near = transitionsBetween(timezone, wall - DAY_MS, wall + DAY_MS);
  if (near.length === 0) return wall - offsetMs(timezone, wall);
  // The spans between the changes in time order, each with its offset: the first span `wall` falls in is the first
  // occurrence of it.
  for (let i = 0; i <= near.length; i++) {
    const at = wall - (i === 0 ? near[0]!.before : near[i - 1]!.after);
    if ((i === 0 || at >= near[i - 1]!.at) && (i === near.length || at < near[i]!.at)) return at;
  }
  const skippedBy = near.find((t) => wall - t.before >= t.at && wall - t.after < t.at);
  return skippedBy ? skippedBy.at : wall - offsetMs(timezone, wall);
}

function transitionsInYear(timezone: string, year: number): Transition[] {
  const key = `${timezone}\u0000${year}`;
  let found = transitionsByZoneYear.get(key);
  if (!found) {
    if (transitionsByZoneYear.size >= CACHE_MAX) transitionsByZoneYear.clear();
    const from = Date.UTC(year, 0, 1);
    const to = Date.UTC(year + 1, 0, 1);
    // Most zones keep one offset all year (no daylight saving): the same offset every week says so without a scan.
    const first = offsetMs(timezone, from);
    let steady = offsetMs(timezone, to - MINUTE_MS) === first;
    for (let t = from + STEADY_SAMPLE_MS; steady && t < to; t += STEADY_SAMPLE_MS) {
      steady = offsetMs(timezone, t) === first;
    }
    found = steady ? [] : scanTransitions(timezone, from, to);
    transitionsByZoneYear.set(key, found);
  }
  return found;
}

/** Offset changes with their instant in (from, to], found by scanning then bisecting to the minute. */
function scanTransitions(timezone: string, from: number, to: number): Transition[] {
  const found: Transition[] = [];
  let t = from;
  let offset = offsetMs(timezone, t);
  while (t < to) {
    const next = Math.min(t + SCAN_STEP_MS, to);
    const nextOffset = offsetMs(timezone, next);
    if (nextOffset !== offset) {
      let lo = t;
      let hi = next;
      while (hi - lo > MINUTE_MS) {
        const mid = lo + Math.max(1, Math.floor((hi - lo) / 2 / MINUTE_MS)) * MINUTE_MS;
        if (offsetMs(timezone, mid) !== offset) hi = mid;
        else lo = mid;
      }
      found.push({ at: Math.ceil(hi / MINUTE_MS) * MINUTE_MS, before: offset, after: nextOffset });
    }
    t = next;
    offset = nextOffset;
  }
  return found;
}

/** One formatter per zone spelling; bounded like the zone-years (jobs store canonical names). */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset at an instant: its wall-clock time read as UTC, minus the instant. */
export function offsetMs(timezone: string, at: number): number {
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
