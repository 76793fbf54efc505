// The tenant's open alerts, newest first. The API has no acknowledge operation: an alert resolves on its job's next
// successful run (a webhook_disabled one when the webhook is enabled again), so the list says what to do instead.
import type { Alert } from '@conduit/sdk';
import { Link } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { formatTime } from '../ui/format.js';
import { Empty } from '../ui/states.js';

export function OpenAlerts({ alerts }: { alerts: readonly Alert[] }) {
  return (
    <section aria-labelledby="alerts-title">
      <h2 id="alerts-title">Open alerts</h2>
      <p className="help">
        An alert resolves by itself on its job’s next successful run; fix the cause and trigger the job again.
      </p>
      {alerts.length === 0 ? (
        <Empty>
          <p>No open alerts: every job’s last run succeeded.</p>
        </Empty>
      ) : (
        <ul className="cards">
          {alerts.map((alert) => (
            <li key={alert.id} className={`card alert-${alert.severity}`}>
              <strong>{alert.severity}</strong> · {alert.rule.replace(/_/g, ' ')} · {alert.occurrences}×
              <p>{alert.message}</p>
              <p>
                since {formatTime(alert.first_seen_at)}, last {formatTime(alert.last_seen_at)}
                {alert.job_id && alert.run_id && (
                  <>
                    {' · '}
                    <Link to={paths.run(alert.job_id, alert.run_id)}>the failed run</Link>
                  </>
                )}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
