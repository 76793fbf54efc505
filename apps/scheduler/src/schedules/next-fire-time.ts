import { CronExpressionParser, type CronExpression } from 'cron-parser';

/**
 * When a cron schedule fires next, in its time zone, with api.md's daylight-saving rules:
 * - a local time that does not exist (spring forward) fires once, at the first minute after the gap;
 *   cron-parser on its own shifts it by the gap's length (02:30 -> 03:30), so those results are replaced;
 * - a local time that occurs twice (fall back) fires once (cron-parser already takes the first).
 * The schedule clock computes each next fire with this function, and `next_run_at` shows it.
 */
export function nextFireTime(pattern: string, timezone: string, after: Date): Date | null {
  let zoned: CronExpression;
  let wall: CronExpression;
  try {
    zoned = CronExpressionParser.parse(pattern, { tz: timezone, currentDate: after });
    // The same pattern read on wall-clock times written as UTC: tells whether a skipped local time matches.
    wall = CronExpressionParser.parse(pattern, { tz: 'UTC' });
  } catch {
    // Five valid fields can still name a date that never comes (`0 0 30 2 *`): such a job never fires.
    return null;
  }
  const regular = nextMatching(zoned);
  const horizon = regular ?? new Date(after.getTime() + YEAR_MS);
  for (const gap of gapsBetween(timezone, after, horizon)) {
    if (gap.at.getTime() > after.getTime() && gapMatches(wall, gap)) return gap.at;
  }
  return regular;
}

const MINUTE_MS = 60_000;
const SCAN_STEP_MS = 6 * 60 * MINUTE_MS;
const YEAR_MS = 366 * 24 * 60 * MINUTE_MS;

/** The first result of cron-parser that really is a scheduled local time (not one shifted past a DST gap). */
function nextMatching(expr: CronExpression): Date | null {
  try {
    for (let i = 0; i < 8 && expr.hasNext(); i++) {
      const candidate = expr.next().toDate();
      if (expr.includesDate(candidate)) return candidate;
    }
  } catch {
    // cron-parser gives up when no date matches within its search range.
  }
  return null;
}

interface Gap {
  /** The instant local time jumps forward. */
  at: Date;
  /** The skipped wall-clock times, as UTC milliseconds: [from, to). */
  wallFrom: number;
  wallTo: number;
}

function gapMatches(wall: CronExpression, gap: Gap): boolean {
  for (let t = gap.wallFrom; t < gap.wallTo; t += MINUTE_MS) {
    if (wall.includesDate(new Date(t))) return true;
  }
  return false;
}

/** Forward jumps of the zone's UTC offset in (from, to], found by scanning then bisecting to the minute. */
function gapsBetween(timezone: string, from: Date, to: Date): Gap[] {
  const gaps: Gap[] = [];
  let t = from.getTime();
  let offset = offsetMs(timezone, t);
  while (t < to.getTime()) {
    const next = Math.min(t + SCAN_STEP_MS, to.getTime() + MINUTE_MS);
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
