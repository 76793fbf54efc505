// A job's schedule: its cron fields, time zone, and the next five fire times as the API answers them
// (`upcoming_runs_at`, computed by the scheduler with its daylight-saving rules, so none is repeated here).
import type { Job } from '@conduit/sdk';
import { formatTime } from '../ui/format.js';

export function ScheduleFacts({ job }: { job: Job }) {
  if (!job.schedule) return <p>Runs only when triggered: it has no schedule.</p>;
  const paused = job.status === 'paused';
  return (
    <>
      <dl className="facts">
        <dt>Schedule</dt>
        <dd>
          <code>{job.schedule}</code>
        </dd>
        <dt>Time zone</dt>
        <dd>{job.timezone}</dd>
        <dt>Status</dt>
        <dd>{paused ? 'paused: no scheduled runs until resumed' : 'active'}</dd>
      </dl>
      {paused ? null : job.upcoming_runs_at.length === 0 ? (
        <p>The schedule names no date still to come: it will not fire.</p>
      ) : (
        <table className="fire-times">
          <caption>Next five fire times</caption>
          <thead>
            <tr>
              <th scope="col">In {job.timezone}</th>
              <th scope="col">Your time</th>
            </tr>
          </thead>
          <tbody>
            {job.upcoming_runs_at.map((at) => (
              <tr key={at}>
                <td>
                  <time dateTime={at}>{inZone(new Date(at), job.timezone)}</time>
                </td>
                <td>{formatTime(at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** A time as the job's zone reads it (the zone the schedule is written in), with the zone's abbreviation. */
function inZone(at: Date, timezone: string): string {
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
