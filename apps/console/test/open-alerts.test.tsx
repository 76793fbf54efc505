import type { Alert } from '@conduit/sdk';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../src/app.js';
import { json, page, stubApi, whoAmI } from './fake-api.js';

const alertOf = (id: string, message: string, occurrences: number): Alert => ({
  id,
  job_id: 'job_1',
  run_id: 'run_1',
  webhook_id: null,
  rule: 'consecutive_failures',
  severity: 'critical',
  status: 'open',
  message,
  occurrences,
  first_seen_at: '2026-11-25T08:00:00.000Z',
  last_seen_at: '2026-11-25T09:00:00.000Z',
  resolved_at: null,
});

const noRuns = {
  job_id: null,
  since: '24h',
  from: '2026-11-24T10:00:00.000Z',
  to: '2026-11-25T10:00:00.000Z',
  runs: { total: 0, queued: 0, running: 0, succeeded: 0, failed: 0, canceled: 0 },
  success_rate: null,
  duration_ms: { avg: null, p50: null, p95: null, max: null },
  rows: { read: 0, written: 0 },
  series: [],
};

/**
 * Serves `open` as the tenant's open alerts (the test changes it between mounts) and `tenant` as who the key is;
 * `morePages` answers them as the first page of a longer list.
 */
function serveAlerts(open: Alert[], tenant = whoAmI.tenant, morePages = false) {
  stubApi({
    'GET /v2/whoami': () => json({ ...whoAmI, tenant }),
    'GET /v2/metrics': () => json(noRuns),
    'GET /v2/jobs': () => json(page([])),
    'GET /v2/alerts': () => json({ ...page(open), next_cursor: morePages ? 'cur_next' : null }),
  });
}

/** Mounts the console on the monitoring page; the returned unmount is a reload as far as the page is concerned. */
async function openMonitoring() {
  sessionStorage.setItem('conduit.apiKey', 'cnd_abcdefgh_secret');
  window.history.replaceState(null, '', '/monitoring');
  const { unmount } = render(<App />);
  await screen.findByRole('heading', { name: 'Open alerts' });
  return { region: screen.getByRole('region', { name: 'Open alerts' }), unmount };
}

const mainList = (region: HTMLElement) =>
  Array.from(region.querySelectorAll(':scope > ul > li'), (li) => li.querySelector('p')!.textContent);
const acknowledgedSection = (region: HTMLElement) => region.querySelector('details');

afterEach(() => localStorage.clear());

describe('open alerts acknowledge', () => {
  it('hides an acknowledged alert across remounts until unacknowledged', async () => {
    serveAlerts([alertOf('alt_1', 'nightly failed 3 times', 3), alertOf('alt_2', 'hourly failed twice', 2)]);
    let { region, unmount } = await openMonitoring();
    await userEvent.click(within(region).getByRole('button', { name: 'Acknowledge “nightly failed 3 times”' }));
    expect(mainList(region)).toEqual(['hourly failed twice']);
    expect(within(region).getByText('Acknowledged (1)')).toBeTruthy();

    unmount();
    ({ region, unmount } = await openMonitoring());
    expect(mainList(region)).toEqual(['hourly failed twice']);
    const section = acknowledgedSection(region)!;
    expect(section.open).toBe(false);
    await userEvent.click(within(section).getByRole('button', { name: 'Unacknowledge “nightly failed 3 times”' }));
    expect(mainList(region)).toEqual(['nightly failed 3 times', 'hourly failed twice']);
    expect(acknowledgedSection(region)).toBeNull();

    unmount();
    ({ region } = await openMonitoring());
    expect(mainList(region)).toEqual(['nightly failed 3 times', 'hourly failed twice']);
  });

  it('brings an alert back, marked, when it happened again since, and forgets resolved ones', async () => {
    const open = [alertOf('alt_1', 'nightly failed 3 times', 3), alertOf('alt_2', 'hourly failed twice', 2)];
    serveAlerts(open);
    const first = await openMonitoring();
    await userEvent.click(within(first.region).getByRole('button', { name: 'Acknowledge “nightly failed 3 times”' }));
    await userEvent.click(within(first.region).getByRole('button', { name: 'Acknowledge “hourly failed twice”' }));
    expect(within(first.region).getByText('Every open alert is acknowledged.')).toBeTruthy();

    first.unmount();
    open.splice(0, 2, { ...open[0]!, occurrences: 4 }); // alt_1 failed again, alt_2 resolved
    const { region } = await openMonitoring();
    const card = within(region).getByText('nightly failed 3 times').closest('li')!;
    expect(card.textContent).toContain('again since acknowledged');
    expect(acknowledgedSection(region)).toBeNull();
    expect(JSON.parse(localStorage.getItem('conduit.alertAcks.tnt_1')!)).toEqual({ alt_1: 3 });

    // Acknowledging it again records the new count, so the mark goes until the next occurrence.
    await userEvent.click(within(card).getByRole('button', { name: 'Acknowledge “nightly failed 3 times”' }));
    expect(JSON.parse(localStorage.getItem('conduit.alertAcks.tnt_1')!)).toEqual({ alt_1: 4 });
  });

  it('keeps each tenant’s acknowledgements apart', async () => {
    const open = [alertOf('alt_1', 'nightly failed 3 times', 3)];
    serveAlerts(open);
    const { region, unmount } = await openMonitoring();
    await userEvent.click(within(region).getByRole('button', { name: 'Acknowledge “nightly failed 3 times”' }));
    unmount();

    serveAlerts(open, { id: 'tnt_2', name: 'Globex' });
    const other = await openMonitoring();
    expect(screen.getByTestId('tenant').textContent).toBe('Globex');
    expect(mainList(other.region)).toEqual(['nightly failed 3 times']);
    expect(acknowledgedSection(other.region)).toBeNull();
    expect(localStorage.getItem('conduit.alertAcks.tnt_2')).toBeNull();
    expect(JSON.parse(localStorage.getItem('conduit.alertAcks.tnt_1')!)).toEqual({ alt_1: 3 });
  });

  it('keeps the acknowledgement of an alert beyond the first page listed', async () => {
    const open = [alertOf('alt_1', 'nightly failed 3 times', 3), alertOf('alt_2', 'hourly failed twice', 2)];
    serveAlerts(open);
    const first = await openMonitoring();
    await userEvent.click(within(first.region).getByRole('button', { name: 'Acknowledge “hourly failed twice”' }));
    first.unmount();

    // Newer alerts pushed alt_2 off the first page: it is still open, so its acknowledgement must survive.
    serveAlerts([alertOf('alt_3', 'daily failed once', 1), open[0]!], whoAmI.tenant, true);
    const { region } = await openMonitoring();
    expect(within(region).getByText('Only the 2 newest open alerts are shown.')).toBeTruthy();
    expect(JSON.parse(localStorage.getItem('conduit.alertAcks.tnt_1')!)).toEqual({ alt_2: 2 });
    await userEvent.click(within(region).getByRole('button', { name: 'Acknowledge “daily failed once”' }));
    expect(JSON.parse(localStorage.getItem('conduit.alertAcks.tnt_1')!)).toEqual({ alt_2: 2, alt_3: 1 });
  });
});
