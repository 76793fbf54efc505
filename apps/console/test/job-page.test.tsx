import type { Job } from '@conduit/sdk';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { App } from '../src/app.js';
import { job, json, page, runDagOf, runOf, stubApi } from './fake-api.js';

const openJob = () => {
  sessionStorage.setItem('conduit.apiKey', 'cnd_abcdefgh_secret');
  window.history.replaceState(null, '', '/jobs/job_1');
};

const scheduled: Job = {
  ...job,
  schedule: '30 2 * * *',
  timezone: 'Europe/Paris',
  next_run_at: '2026-11-26T01:30:00.000Z',
  upcoming_runs_at: [
    '2026-11-26T01:30:00.000Z',
    '2026-11-27T01:30:00.000Z',
    '2026-11-28T01:30:00.000Z',
    '2026-11-29T01:30:00.000Z',
    '2026-11-30T01:30:00.000Z',
  ],
  parameters: { region: 'eu' },
};

describe('job page', () => {
  it("shows the schedule, its time zone and the API's next five fire times, read in that zone", async () => {
    // Across Paris's spring-forward change: 02:30 does not exist on 2027-03-28, the scheduler fires at 03:00 CEST.
    const springing: Job = {
      ...scheduled,
      next_run_at: '2027-03-27T01:30:00.000Z',
      upcoming_runs_at: [
        '2027-03-27T01:30:00.000Z',
        '2027-03-28T01:00:00.000Z',
        '2027-03-29T00:30:00.000Z',
        '2027-03-30T00:30:00.000Z',
        '2027-03-31T00:30:00.000Z',
      ],
    };
    stubApi({ 'GET /v2/jobs/:id': () => json(springing), 'GET /v2/jobs/:id/runs': () => json(page([])) });
    openJob();
    render(<App />);
    const table = await screen.findByRole('table', { name: 'Next five fire times' });
    const times = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) => row.querySelector('time'));
    expect(times.map((t) => t?.getAttribute('datetime'))).toEqual(springing.upcoming_runs_at);
    expect(times.map((t) => t?.textContent?.match(/\d\d:\d\d/)?.[0])).toEqual([
      '02:30',
      '03:00',
      '02:30',
      '02:30',
      '02:30',
    ]);
    expect(screen.getByText('Europe/Paris')).toBeTruthy();
    expect(await screen.findByText('This job has not run yet. Press “Trigger run” to start one.')).toBeTruthy();
  });

  it('shows no fire times while paused', async () => {
    stubApi({
      'GET /v2/jobs/:id': () => json({ ...scheduled, status: 'paused', next_run_at: null, upcoming_runs_at: [] }),
      'GET /v2/jobs/:id/runs': () => json(page([])),
    });
    openJob();
    render(<App />);
    expect(await screen.findByText('paused: no scheduled runs until resumed')).toBeTruthy();
    expect(screen.queryByRole('table', { name: 'Next five fire times' })).toBeNull();
  });

  it('pauses and resumes the schedule', async () => {
    const calls: string[] = [];
    stubApi({
      'GET /v2/jobs/:id': () => json(scheduled),
      'GET /v2/jobs/:id/runs': () => json(page([])),
      'POST /v2/jobs/:id/pause': () => (calls.push('pause'), json({ ...scheduled, status: 'paused' })),
      'POST /v2/jobs/:id/resume': () => (calls.push('resume'), json(scheduled)),
    });
    openJob();
    render(<App />);
    await userEvent.click(await screen.findByRole('button', { name: 'Pause schedule' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Resume schedule' }));
    await screen.findByRole('button', { name: 'Pause schedule' });
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('triggers a run with parameters, refusing JSON that is not an object', async () => {
    const bodies: unknown[] = [];
    stubApi({
      'GET /v2/jobs/:id': () => json(scheduled),
      'GET /v2/jobs/:id/runs': () => json(page([])),
      'GET /v2/jobs/:id/runs/:run': () => json(runOf('queued', {})),
      'GET /v2/jobs/:id/runs/:run/logs': () => json(page([])),
      'GET /v2/jobs/:id/runs/:run/dag': () => json(runDagOf()),
      'POST /v2/jobs/:id/run': async (request) => {
        bodies.push(await request.json());
        return json(runOf('queued', {}), 202);
      },
    });
    openJob();
    render(<App />);
    const parameters = await screen.findByLabelText('Parameters for this run (JSON, optional)');
    await userEvent.type(parameters, '[[1');
    expect(screen.getByRole('button', { name: 'Trigger run' })).toHaveProperty('disabled', true);
    expect(parameters.getAttribute('aria-invalid')).toBe('true');
    await userEvent.clear(parameters);
    await userEvent.type(parameters, '{{"day": "2026-11-24"}');
    await userEvent.click(screen.getByRole('button', { name: 'Trigger run' }));
    await screen.findByRole('heading', { level: 1, name: /run_1/ });
    expect(bodies).toEqual([{ parameters: { day: '2026-11-24' } }]);
    expect(window.location.pathname).toBe('/jobs/job_1/runs/run_1');
  });

  it('filters the runs by status on the server', async () => {
    const { requests } = stubApi({
      'GET /v2/jobs/:id': () => json(scheduled),
      'GET /v2/jobs/:id/runs': (_req, url) =>
        json(page(url.searchParams.get('status') === 'failed' ? [] : [runOf('succeeded', {})])),
    });
    openJob();
    render(<App />);
    expect(await screen.findByRole('link', { name: 'run_1' })).toBeTruthy();
    await userEvent.selectOptions(screen.getByLabelText('Status'), 'failed');
    expect(await screen.findByText('No failed runs among the latest. Choose “all” to see every run.')).toBeTruthy();
    expect(requests.at(-1)!.url).toContain('status=failed');
  });
});
