// A job's schedule: its cron fields, time zone, and the next five fire times (the API's next_run_at first, then the
// browser's cron-parser: see fire-times.ts).
import type { Job } from '@conduit/sdk';
import { formatTime } from '../ui/format.js';
import { inZone, nextFireTimes } from './fire-times.js';

export function ScheduleFacts({ job, now = new Date() }: { job: Job; now?: Date }) {
  if (!job.schedule) return <p>Runs only when triggered: it has no schedule.</p>;
  const fromApi = job.next_run_at ? new Date(job.next_run_at) : undefined;
  const computed = nextFireTimes(job.schedule, job.timezone, fromApi ?? now, fromApi ? 4 : 5);
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
        <dd>{job.status === 'paused' ? 'paused: no scheduled runs until resumed' : 'active'}</dd>
      </dl>
      {computed.ok ? (
        <table className="fire-times">
          <caption>Next five fire times</caption>
          <thead>
            <tr>
              <th scope="col">In {job.timezone}</th>
              <th scope="col">Your time</th>
            </tr>
          </thead>
          <tbody>
            {[...(fromApi ? [fromApi] : []), ...computed.times].map((at) => (
              <tr key={at.toISOString()}>
                <td>
                  <time dateTime={at.toISOString()}>{inZone(at, job.timezone)}</time>
                </td>
                <td>{formatTime(at.toISOString())}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p role="alert">The schedule could not be read here: {computed.error}</p>
      )}
    </>
  );
}
