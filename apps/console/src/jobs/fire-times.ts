// A job's next fire times, computed in the browser: the API answers only the next one (`next_run_at`). cron-parser
// is the library the scheduler uses (apps/scheduler/src/schedules/next-fire-time.ts), read with the job's time zone.
// The scheduler also moves a local time that a spring-forward gap skips to the gap's end; a listed time inside
// such a gap may read an hour late here, so the first time shown is the API's own when it has one.
import { CronExpressionParser } from 'cron-parser';

export type FireTimes = { ok: true; times: Date[] } | { ok: false; error: string };

export function nextFireTimes(schedule: string, timezone: string, after: Date, count = 5): FireTimes {
  try {
    const expression = CronExpressionParser.parse(schedule, { tz: timezone, currentDate: after });
    const times: Date[] = [];
    while (times.length < count && expression.hasNext()) times.push(expression.next().toDate());
    return { ok: true, times };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** A time as the job's zone reads it (the zone the schedule is written in), with the zone's abbreviation. */
export function inZone(at: Date, timezone: string): string {
  return new Intl.DateTimeFormat(undefined, {
    timeZone: timezone,
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(at);
}
