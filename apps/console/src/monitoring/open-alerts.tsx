// The tenant's open alerts, newest first. The API has no acknowledge operation: an alert resolves on its job's next
// successful run (a webhook_disabled one when the webhook is enabled again), so the list says what to do instead.
// Acknowledging only hides an alert in this browser (alert-acks.ts) until it happens again.
import type { Alert } from '@conduit/sdk';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { Link } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { useSession } from '../session/session-context.js';
import { formatTime } from '../ui/format.js';
import { Empty } from '../ui/states.js';
import { keepOpen, loadAlertAcks, saveAlertAcks, sortByAck, type AlertAcks } from './alert-acks.js';

/** `complete` is false when `alerts` is only the newest page of the open alerts. */
export function OpenAlerts({ alerts, complete }: { alerts: readonly Alert[]; complete: boolean }) {
  const { acks, acknowledge, unacknowledge } = useAlertAcks(alerts, complete);
  const { listed, acknowledged } = sortByAck(alerts, acks);
  return (
    <section aria-labelledby="alerts-title">
      <h2 id="alerts-title">Open alerts</h2>
      <p className="help">
        An alert resolves by itself on its job’s next successful run; fix the cause and trigger the job again.
        Acknowledging hides an alert in this browser only, until it happens again; it does not change the alert for
        anyone else.
      </p>
      {alerts.length === 0 ? (
        <Empty>
          <p>No open alerts: every job’s last run succeeded.</p>
        </Empty>
      ) : listed.length === 0 ? (
        <p>Every open alert is acknowledged.</p>
      ) : (
        <ul className="cards">
          {listed.map(({ alert, again }) => (
            <AlertCard key={alert.id} alert={alert} note={again ? 'again since acknowledged' : undefined}>
              <button type="button" aria-label={`Acknowledge “${alert.message}”`} onClick={() => acknowledge(alert)}>
                Acknowledge
              </button>
            </AlertCard>
          ))}
        </ul>
      )}
      {!complete && <p className="help">Only the {alerts.length} newest open alerts are shown.</p>}
      {acknowledged.length > 0 && (
        <details>
          <summary>Acknowledged ({acknowledged.length})</summary>
          <ul className="cards">
            {acknowledged.map((alert) => (
              <AlertCard key={alert.id} alert={alert}>
                <button
                  type="button"
                  aria-label={`Unacknowledge “${alert.message}”`}
                  onClick={() => unacknowledge(alert)}
                >
                  Unacknowledge
                </button>
              </AlertCard>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function AlertCard({ alert, note, children }: { alert: Alert; note?: string | undefined; children: ReactNode }) {
  return (
    <li className={`card alert-${alert.severity}`}>
      <strong>{alert.severity}</strong> · {alert.rule.replace(/_/g, ' ')} · {alert.occurrences}×
      {note && <em> · {note}</em>}
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
      {children}
    </li>
  );
}

/** The signed-in tenant's acknowledgements, pruned to the alerts still open and saved on every change. */
function useAlertAcks(alerts: readonly Alert[], complete: boolean) {
  const { tenantId: tenant } = useSession().identity;
  const [stored, setStored] = useState<AlertAcks>(() => loadAlertAcks(tenant));
  const acks = useMemo(() => keepOpen(stored, alerts, complete), [stored, alerts, complete]);
  useEffect(() => saveAlertAcks(tenant, acks), [tenant, acks]);
  return {
    acks,
    acknowledge: (alert: Alert) => setStored({ ...acks, [alert.id]: alert.occurrences }),
    unacknowledge: (alert: Alert) =>
      setStored(Object.fromEntries(Object.entries(acks).filter(([id]) => id !== alert.id))),
  };
}
