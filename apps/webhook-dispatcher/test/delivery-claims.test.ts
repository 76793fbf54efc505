// An attempt's outcome is written only under the claim it was sent with: once the sweep has taken a claim over (this
// process looked dead), the late outcome of the first send must neither overwrite the row nor plan a second retry.
import { describe, expect, it } from '@jest/globals';
import { useDispatcherSuite } from './support/dispatcher-suite.js';
import type { Webhook } from '@conduit/contracts';
import { newTenant } from './support/db.js';
import { waitFor } from '@conduit/testing';
import { runEvent } from './support/events.js';

const suite = useDispatcherSuite({
  dispatcher: { allowHttp: true, allowPrivateNetworks: true, retryScheduleMs: [200], timeoutMs: 1000 },
});
const { caller, receiver, events } = suite;

describe('claims', () => {
  it('drops the late failure of an attempt whose claim the sweep took over, without planning a retry', async () => {
    const tenant = newTenant();
    // The first POST never answers: this process's send ends in a timeout failure after 1 s.
    const hook = receiver.endpoint((n) => (n === 0 ? 'hang' : { status: 200 }));
    const webhook = await caller.ok<Webhook>(tenant, 'webhooks.webhooks.create', {
      body: { url: hook.url, events: ['job.failed'], secret: 'claims-secret-0123456789' },
    });
    await events.publish(runEvent(tenant, 'run.failed'));
    await waitFor(() => receiver.requests(hook.path).length === 1, { what: 'the first POST' });
    const [row] = await suite.ds.query<{ id: string }[]>(`SELECT id FROM deliveries WHERE webhook_id = $1`, [
      webhook.id,
    ]);
    // What the sweep's re-claim writes while the first send is still hanging.
    await suite.ds.query(`UPDATE deliveries SET claimed_at = claimed_at + interval '1 millisecond' WHERE id = $1`, [
      row!.id,
    ]);

    await waitFor(
      () =>
        suite.dispatcher
          .logs()
          .split('\n')
          .some((l) => l.includes('its claim was taken over') && l.includes(row!.id)),
      { what: 'the dropped outcome', timeoutMs: 5000 },
    );
    const rows = await suite.ds.query<object[]>(
      `SELECT attempt, status, status_code, error FROM deliveries WHERE webhook_id = $1 ORDER BY attempt`,
      [webhook.id],
    );
    expect(rows).toEqual([{ attempt: 1, status: 'pending', status_code: null, error: null }]);
  });
});
