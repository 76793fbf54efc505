// The tenant's webhooks, each with its deliveries and a Test button.
import { WebhookCard } from '../monitoring/webhook-deliveries.js';
import { dataOf } from '../sdk/raw-result.js';
import { useSession } from '../session/session-context.js';
import { Empty, ErrorState, Loading } from '../ui/states.js';
import { useLoad } from '../ui/use-load.js';

export function WebhooksPage() {
  const { client } = useSession();
  const webhooks = useLoad(
    async () => (await dataOf(client.raw.GET('/v2/webhooks', { params: { query: { limit: 200 } } }))).data,
    [client],
  );
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      {webhooks.state === 'loading' && <Loading what="webhooks" />}
      {webhooks.state === 'failed' && <ErrorState error={webhooks.error} retry={webhooks.reload} />}
      {webhooks.state === 'ready' && webhooks.value.length === 0 && (
        <Empty>
          <p>No webhooks yet.</p>
          <p>
            Add one with <code>POST /v2/webhooks</code> (a URL, the events, a secret) in the{' '}
            <a href="/docs">API docs</a>, then reload this page and send it a test event.
          </p>
        </Empty>
      )}
      {webhooks.state === 'ready' && webhooks.value.length > 0 && (
        <ul className="cards cards-wide">
          {webhooks.value.map((webhook) => (
            <WebhookCard key={webhook.id} webhook={webhook} />
          ))}
        </ul>
      )}
    </section>
  );
}
