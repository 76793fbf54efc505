import { upcomingFireTimes } from './next-fire-time.js';

/** How many fire times a job answers in `upcoming_runs_at`. */
export const UPCOMING_FIRES = 5;
/** Schedules kept; past it the cache starts again (a page of jobs has at most 200). */
const CACHE_MAX = 1_000;

interface Entry {
  from: number;
  times: string[];
}

// Every job answer (GET, each job of a list page) carries its next fires, and computing five costs about a
// millisecond of cron-parser per schedule. The answer stays the same from the moment it was computed until its first
// time passes, so schedules shared by many jobs, or read again, are computed once in that window.
const bySchedule = new Map<string, Entry>();

/** The schedule's next UPCOMING_FIRES fire times from `now`, as ISO strings (upcomingFireTimes, cached). */
export function upcomingFires(pattern: string, timezone: string, now: Date): string[] {
  const key = `${pattern}\u0000${timezone}`;
  const cached = bySchedule.get(key);
  const first = cached?.times[0];
  if (cached && first !== undefined && cached.from <= now.getTime() && now.getTime() < Date.parse(first)) {
    return cached.times;
  }
  const times = upcomingFireTimes(pattern, timezone, now, UPCOMING_FIRES).map((at) => at.toISOString());
  if (bySchedule.size >= CACHE_MAX) bySchedule.clear();
  bySchedule.set(key, { from: now.getTime(), times });
  return times;
}
