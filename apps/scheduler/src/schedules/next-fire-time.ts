import { cronNeverFires } from '@conduit/contracts';
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { DAY_MS, instantOfWallTime, offsetMs, transitionsBetween } from './zone-gaps.js';

/**
 * When a cron schedule fires next, in its time zone, with api.md's daylight-saving rules. A schedule names local
 * wall-clock times, and each of them fires at most once:
 * - one that occurs twice (fall back) fires at its first occurrence only: every time of the repeated span, whatever
 *   the cron fields. Decided on the wall time alone, so from inside the second occurrence those times are past;
 * - one that does not exist (spring forward) fires at the first minute after the gap: once for the whole gap.
 * cron-parser reads the pattern on wall-clock times written as UTC, where no change exists, and zone-gaps maps each
 * to its instant: cron-parser's own handling of a zone's changes repeats some local times (any `*` hour, a change at
 * midnight) and loses others (half-hour changes).
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
  const from = after.getTime();
  // The first fire comes within the horizon of `after`, each next one within it of the one before, and those after
  // the first within `withinMs` of it: past that, there is none.
  const end = from + Math.min(count * FIRE_HORIZON_MS, FIRE_HORIZON_MS + withinMs);
  // The wall times from `after`'s on; from earlier when the offset drops within the day, as a repeated span's first
  // occurrence may still be ahead (the times that turn out to be past are passed over below).
  const lowest = Math.min(
    offsetMs(timezone, from),
    ...transitionsBetween(timezone, from, from + DAY_MS).map((t) => t.after),
  );
  let wall: CronExpression;
  try {
    wall = CronExpressionParser.parse(pattern, {
      tz: 'UTC',
      currentDate: new Date(from + lowest),
      // A wall time is its instant plus an offset of under a day.
      endDate: new Date(end + DAY_MS),
    });
  } catch {
    // A pattern cron-parser does not take (it refuses a value listed twice, `0 0 1,1 * *`) never fires.
    return [];
  }
  const fires: number[] = [];
  try {
    // No hasNext(): it runs the same search as next(), which throws at the end anyway.
    while (fires.length < count) {
      const at = instantOfWallTime(timezone, wall.next().getTime());
      // Wall times map to instants in order; one at or before the last fire is past (a repeated time's second
      // occurrence), or a skipped time landing on the instant another already fires at.
      if (at <= (fires.at(-1) ?? from)) continue;
      if (at > end || (fires.length > 0 && at - fires[0]! > withinMs)) break;
      fires.push(at);
    }
  } catch {
    // cron-parser gives up when no date matches before endDate or within its search range.
  }
  return fires.map((at) => new Date(at));
}

const YEAR_MS = 366 * DAY_MS;
/**
 * How far past `after`, or past the fire before, a fire is looked for: no schedule that fires at all has two fires
 * further apart (29 February, 2096 to 2104, is the longest). Past it the schedule counts as never firing: cron-parser
 * walks month by month and day by day, and a schedule no date matches costs it ~10,000 steps (a third of a second).
 */
export const FIRE_HORIZON_MS = 8 * YEAR_MS;
