// One webhook: its latest delivery attempts (status code, latency, error, next retry) and Test, which sends a `ping`
// event and shows its first attempt among the deliveries.
import type { Webhook } from '@conduit/sdk';
import { useState } from 'react';
import { dataOf } from '../sdk/raw-result.js';
import { useSession } from '../session/session-context.js';
import { formatDuration, formatTime } from '../ui/format.js';
import { Empty, ErrorState, Loading, describeError } from '../ui/states.js';
import { useLoad } from '../ui/use-load.js';

export function WebhookCard({ webhook }: { webhook: Webhook }) {
  const { client } = useSession();
  const [open, setOpen] = useState(false);
  const [generation, setGeneration] = useState(0);
  const [testing, setTesting] = useState(false);
  const [testOutcome, setTestOutcome] = useState<string>();
  const path = { webhook_id: webhook.id };

  const test = () => {
    setTesting(true);
    setTestOutcome(undefined);
    dataOf(client.raw.POST('/v2/webhooks/{webhook_id}/test', { params: { path } }))
      .then(
        (delivery) => {
          setTestOutcome(`Test event sent (${delivery.event_type}, attempt ${delivery.attempt}: ${delivery.status}).`);
          setOpen(true);
          setGeneration((g) => g + 1);
        },
        (err: unknown) => setTestOutcome(`Test failed: ${describeError(err).message}`),
      )
      .finally(() => setTesting(false));
  };

  const headingId = `webhook-${webhook.id}`;
  return (
    <li className="card webhook" aria-labelledby={headingId}>
      <h3 id={headingId}>
        <code>{webhook.url}</code>{' '}
        <span className={`badge badge-${webhook.status === 'active' ? 'active' : 'paused'}`}>{webhook.status}</span>
      </h3>
      <p>
        {webhook.events.join(', ')}
        {webhook.description && ` · ${webhook.description}`}
        {webhook.disabled_reason && ` · disabled: ${webhook.disabled_reason}`}
      </p>
      <div className="toolbar">
        <button type="button" className="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide deliveries' : 'Show deliveries'}
        </button>
        <button type="button" onClick={test} disabled={testing}>
          {testing ? 'Sending…' : 'Send test event'}
        </button>
        <span role="status">{testOutcome}</span>
      </div>
      {open && <Deliveries webhookId={webhook.id} generation={generation} />}
    </li>
  );
}

function Deliveries({ webhookId, generation }: { webhookId: string; generation: number }) {
  const { client } = useSession();
  const deliveries = useLoad(
    async () =>
      (
        await dataOf(
          client.raw.GET('/v2/webhooks/{webhook_id}/deliveries', {
            params: { path: { webhook_id: webhookId }, query: { limit: 20 } },
          }),
        )
      ).data,
    [client, webhookId, generation],
  );
  if (deliveries.state === 'loading') return <Loading what="deliveries" />;
  if (deliveries.state === 'failed') return <ErrorState error={deliveries.error} retry={deliveries.reload} />;
  if (deliveries.value.length === 0)
    return (
      <Empty>
        <p>Nothing delivered yet. Press “Send test event”, or wait for a run to end.</p>
      </Empty>
    );
  return (
    <div className="table-wrap">
      <table>
        <caption>Latest delivery attempts</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Attempt</th>
            <th scope="col">Status</th>
            <th scope="col">HTTP</th>
            <th scope="col">Latency</th>
            <th scope="col">Error / next retry</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.value.map((d) => (
            <tr key={d.id}>
              <th scope="row">{d.event_type}</th>
              <td>{d.attempt}</td>
              <td>
                <span className={`badge state-${d.status === 'pending' ? 'queued' : d.status}`}>{d.status}</span>
              </td>
              <td>{d.status_code ?? '–'}</td>
              <td>{formatDuration(d.latency_ms === null ? null : Math.round(d.latency_ms))}</td>
              <td>
                {d.error ?? ''}
                {d.next_retry_at && ` retry at ${formatTime(d.next_retry_at)}`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
