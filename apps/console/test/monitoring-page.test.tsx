import type { Alert, Metrics, Webhook } from '@conduit/sdk';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { App } from '../src/app.js';
import { job, json, page, stubApi } from './fake-api.js';

const signedInAt = (path: string) => {
  sessionStorage.setItem('conduit.apiKey', 'cnd_abcdefgh_secret');
  window.history.replaceState(null, '', path);
};

const metrics = (jobId: string | null, succeeded: number, failed: number): Metrics => ({
  job_id: jobId,
  since: '24h',
  from: '2026-11-24T10:00:00.000Z',
  to: '2026-11-25T10:00:00.000Z',
  runs: { total: succeeded + failed, queued: 0, running: 0, succeeded, failed, canceled: 0 },
  success_rate: succeeded + failed === 0 ? null : succeeded / (succeeded + failed),
  duration_ms: { avg: 2000, p50: 1500, p95: 4200, max: 5000 },
  rows: { read: 10, written: 5 },
  series: [
    { start: '2026-11-25T08:00:00.000Z', succeeded: 2, failed: 1, avg_duration_ms: 1800 },
    { start: '2026-11-25T09:00:00.000Z', succeeded: succeeded - 2, failed: failed - 1, avg_duration_ms: 2200 },
  ],
});

const alert: Alert = {
  id: 'alt_1',
  job_id: job.id,
  run_id: 'run_1',
  webhook_id: null,
  rule: 'consecutive_failures',
  severity: 'critical',
  status: 'open',
  message: 'nightly failed 3 times in a row',
  occurrences: 3,
  first_seen_at: '2026-11-25T08:00:00.000Z',
  last_seen_at: '2026-11-25T09:00:00.000Z',
  resolved_at: null,
};

describe('monitoring page', () => {
  it('shows runs over time, success rate and percentiles per job, and open alerts', async () => {
    const { requests } = stubApi({
      'GET /v2/metrics': (_req, url) =>
        json(url.searchParams.get('job_id') ? metrics(job.id, 3, 1) : metrics(null, 9, 3)),
      'GET /v2/jobs': () => json(page([job])),
      'GET /v2/alerts': () => json(page([alert])),
    });
    signedInAt('/');
    render(<App />);
    await userEvent.click(await screen.findByRole('link', { name: 'Monitoring' }));
    expect((await screen.findByLabelText('The window at a glance')).textContent).toContain('12 (9 succeeded, 3 failed');
    const runsTable = screen.getByText('Runs over time as a table').closest('details')!;
    expect(
      within(runsTable)
        .getAllByRole('row')
        .slice(1)
        .map((row) =>
          Array.from(row.children)
            .slice(1)
            .map((c) => c.textContent),
        ),
    ).toEqual([
      ['2', '1'],
      ['7', '2'],
    ]);
    const perJob = screen.getByRole('table', { name: /Per job/ });
    const jobRow = within(perJob).getByRole('row', { name: /nightly/ });
    expect(Array.from(jobRow.children, (c) => c.textContent?.trim())).toEqual([
      'nightly',
      '4',
      '1',
      '75%',
      '1.5 s',
      '4.2 s',
      '5.0 s',
    ]);
    const alerts = screen.getByRole('region', { name: 'Open alerts' });
    expect(within(alerts).getByText('nightly failed 3 times in a row')).toBeTruthy();
    expect(within(alerts).getByRole('link', { name: 'the failed run' }).getAttribute('href')).toBe(
      '/jobs/job_1/runs/run_1',
    );
    expect(requests.find((r) => r.url.includes('/v2/alerts'))!.url).toContain('status=open');

    await userEvent.selectOptions(screen.getByLabelText('Window'), '7d');
    await screen.findByLabelText('The window at a glance');
    expect(requests.filter((r) => r.url.includes('/v2/metrics')).at(-1)!.url).toContain('since=7d');
  });

  it('says what to do when nothing ran and no alert is open', async () => {
    stubApi({
      'GET /v2/metrics': () => json({ ...metrics(null, 2, 1), runs: { ...metrics(null, 0, 0).runs }, series: [] }),
      'GET /v2/jobs': () => json(page([])),
      'GET /v2/alerts': () => json(page([])),
    });
    signedInAt('/monitoring');
    render(<App />);
    expect(await screen.findByText(/No job ran in this window/)).toBeTruthy();
    expect(screen.getByText(/No open alerts/)).toBeTruthy();
  });
});

const webhook: Webhook = {
  id: 'whk_1',
  url: 'https://hooks.example.org/conduit',
  events: ['job.failed', 'job.completed'],
  description: 'ops channel',
  status: 'active',
  disabled_reason: null,
  created_at: '2026-11-25T08:00:00.000Z',
  updated_at: '2026-11-25T08:00:00.000Z',
};

describe('webhooks page', () => {
  it('shows a webhook’s deliveries and sends it a test event', async () => {
    const delivery = (id: string, event_type: string, status: string, status_code: number | null) => ({
      id,
      webhook_id: webhook.id,
      event_id: `evt_${id}`,
      event_type,
      attempt: 1,
      status,
      status_code,
      latency_ms: status_code ? 84.2 : null,
      error: status === 'failed' ? 'answered 500' : null,
      next_retry_at: null,
      created_at: '2026-11-25T09:00:00.000Z',
    });
    const sent = [delivery('dlv_1', 'job.failed', 'failed', 500)];
    stubApi({
      'GET /v2/webhooks': () => json(page([webhook])),
      'GET /v2/webhooks/:id/deliveries': () => json(page(sent)),
      'POST /v2/webhooks/:id/test': () => {
        const ping = delivery('dlv_2', 'ping', 'pending', null);
        sent.unshift(ping);
        return json(ping, 202);
      },
    });
    signedInAt('/webhooks');
    render(<App />);
    const card = await screen.findByRole('listitem', { name: /hooks\.example\.org/ });
    await userEvent.click(within(card).getByRole('button', { name: 'Show deliveries' }));
    const rows = async () =>
      within(await within(card).findByRole('table', { name: 'Latest delivery attempts' }))
        .getAllByRole('row')
        .slice(1)
        .map((row) => Array.from(row.children, (c) => c.textContent));
    expect(await rows()).toEqual([['job.failed', '1', 'failed', '500', '84 ms', 'answered 500']]);

    await userEvent.click(within(card).getByRole('button', { name: 'Send test event' }));
    expect(await within(card).findByText('Test event sent (ping, attempt 1: pending).')).toBeTruthy();
    await within(card).findByRole('rowheader', { name: 'ping' });
    expect((await rows())[0]).toEqual(['ping', '1', 'pending', '–', '–', '']);
  });

  it('says how to add one when there are none', async () => {
    stubApi({ 'GET /v2/webhooks': () => json(page([])) });
    signedInAt('/webhooks');
    render(<App />);
    expect(await screen.findByText('No webhooks yet.')).toBeTruthy();
  });
});
