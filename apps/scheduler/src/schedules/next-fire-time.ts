import { cronNeverFires } from '@conduit/contracts';
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { gapsBetween, type Gap } from './zone-gaps.js';

/**
 * When a cron schedule fires next, in its time zone, with api.md's daylight-saving rules:
 * - a local time that does not exist (spring forward) fires once, at the first minute after the gap;
 *   cron-parser on its own shifts it by the gap's length (02:30 -> 03:30), so those results are replaced;
 * - a local time that occurs twice (fall back) fires once (cron-parser already takes the first).
 * The schedule clock computes each next fire with this function, and `next_run_at` shows it.
 */
export function nextFireTime(pattern: string, timezone: string, after: Date): Date | null {
  return upcomingFireTimes(pattern, timezone, after, 1)[0] ?? null;
}

/**
 * The next `count` fire times from `after`: the times nextFireTime gives, each from the one before (as the schedule
 * clock moves on once a fire is due); fewer when the schedule runs out of dates. The pattern is read once for all.
 * A schedule whose dates never come answers none at once, and no search goes past FIRE_HORIZON_MS per fire: the
 * answer never holds the event loop for long, whatever the stored schedule.
 */
export function upcomingFireTimes(
  pattern: string,
  timezone: string,
  after: Date,
  count: number,
  /** Fires after the first are looked for only this far past it (a rare schedule lists fewer). */
  withinMs = Infinity,
): Date[] {
  // The API refuses these; a job stored before it did may still hold one (cron-parser would search for ever).
  if (cronNeverFires(pattern)) return [];
  // The first fire comes within the horizon of `after`, each next one within it of the one before, and those after
  // the first within `withinMs` of it: past that, there is none (cron-parser stops at endDate).
  const endDate = new Date(after.getTime() + Math.min(count * FIRE_HORIZON_MS, FIRE_HORIZON_MS + withinMs));
  let zoned: CronExpression;
  let wall: CronExpression;
  try {
    zoned = CronExpressionParser.parse(pattern, { tz: timezone, currentDate: after, endDate });
    // The same pattern read on wall-clock times written as UTC: tells whether a skipped local time matches.
    wall = CronExpressionParser.parse(pattern, { tz: 'UTC' });
  } catch {
    // A pattern cron-parser does not take (it refuses a value listed twice, `0 0 1,1 * *`) never fires.
    return [];
  }
  const regular = realMatches(zoned, count, withinMs);
  const until = (regular[0] ?? after).getTime() + withinMs;
  const last = regular.at(-1);
  const open = new Date(Math.min((last ?? after).getTime() + YEAR_MS, until));
  const horizon = last !== undefined && regular.length === count ? last : open;
  const skipped = gapsBetween(timezone, after, horizon)
    .filter((gap) => gapMatches(wall, gap))
    .map((gap) => gap.at);
  // A skipped local time fires at the gap's end, which may also be a regular time: that instant fires once.
  const merged = [...regular, ...skipped].sort((a, b) => a.getTime() - b.getTime());
  // The window runs from the first fire, which may be a skipped time's before the first regular one.
  const first = merged[0]?.getTime() ?? 0;
  return merged
    .filter((at, i) => (i === 0 || at.getTime() !== merged[i - 1]!.getTime()) && at.getTime() - first <= withinMs)
    .slice(0, count);
}

const MINUTE_MS = 60_000;
const YEAR_MS = 366 * 24 * 60 * MINUTE_MS;
/**
 * How far past `after`, or past the fire before, a fire is looked for: no schedule that fires at all has two fires
 * further apart (29 February, 2096 to 2104, is the longest). Past it the schedule counts as never firing: cron-parser
 * walks month by month and day by day, and a schedule no date matches costs it ~10,000 steps (a third of a second).
 */
export const FIRE_HORIZON_MS = 8 * YEAR_MS;
/** cron-parser's results in a row that may be shifted past DST gaps before the next real one. */
const SHIFTED_MAX = 8;

/**
 * The first `count` results of cron-parser that really are scheduled local times (not ones shifted past a gap), the
 * ones after the first no later than `withinMs` past it (cron-parser walks day by day: a rare date costs its years).
 */
function realMatches(expr: CronExpression, count: number, withinMs: number): Date[] {
  const found: Date[] = [];
  try {
    // No hasNext(): it runs the same search as next(), which throws at the end anyway.
    for (let shifted = 0; found.length < count && shifted < SHIFTED_MAX;) {
      const candidate = expr.next().toDate();
      if (found.length > 0 && candidate.getTime() > found[0]!.getTime() + withinMs) break;
      if (expr.includesDate(candidate)) found.push(candidate);
      else shifted++;
    }
  } catch {
    // cron-parser gives up when no date matches before endDate or within its search range.
  }
  return found;
}

function gapMatches(wall: CronExpression, gap: Gap): boolean {
  for (let t = gap.wallFrom; t < gap.wallTo; t += MINUTE_MS) {
    if (wall.includesDate(new Date(t))) return true;
  }
  return false;
}
