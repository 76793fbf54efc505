import { canonicalTimeZone } from '@conduit/contracts';
import { upcomingFireTimes } from './next-fire-time.js';

/** How many fire times a job answers in `upcoming_runs_at`. */
export const UPCOMING_FIRES = 5;
/**
 * How far past the first fire the others are looked for: a rare schedule (`0 0 29 2 *`) would otherwise walk a
 * decade of a zone's daylight-saving changes per answer; it lists fewer than five instead.
 */
export const UPCOMING_WITHIN_MS = 2 * 366 * 24 * 3600 * 1000;
/** Schedules kept; past it the cache starts again (a page of jobs has at most 200). */
const CACHE_MAX = 1_000;
/** How long an answer of no fire at all is kept (there is no first time to keep it until). */
const NEVER_KEPT_MS = 24 * 3600 * 1000;

interface Entry {
  from: number;
  /** Until when the answer holds: its first time, or NEVER_KEPT_MS past `from` for none. */
  until: number;
  times: string[];
}

// Every job answer (GET, each job of a list page) carries its next fires, and computing five costs about a
// millisecond of cron-parser per schedule. The answer stays the same from the moment it was computed until its first
// time passes, so schedules shared by many jobs, or read again, are computed once in that window. A schedule that
// never fires is kept too: its answer is the one costly to compute (a search that finds nothing ends at its horizon).
const bySchedule = new Map<string, Entry>();

/** The schedule's next UPCOMING_FIRES fire times from `now`, as ISO strings (upcomingFireTimes, cached). */
export function upcomingFires(pattern: string, timezone: string, now: Date): string[] {
  // Jobs keep the zone as sent (any casing, any alias): one key, and one set of zone caches, per real zone.
  const zone = canonicalTimeZone(timezone) ?? timezone;
  const key = `${pattern}\u0000${zone}`;
  const cached = bySchedule.get(key);
  if (cached && cached.from <= now.getTime() && now.getTime() < cached.until) return cached.times;
  const fires = upcomingFireTimes(pattern, zone, now, UPCOMING_FIRES, UPCOMING_WITHIN_MS);
  const times = fires.map((at) => at.toISOString());
  const until = fires[0]?.getTime() ?? now.getTime() + NEVER_KEPT_MS;
  if (bySchedule.size >= CACHE_MAX) bySchedule.clear();
  bySchedule.set(key, { from: now.getTime(), until, times });
  return times;
}
