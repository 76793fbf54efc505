import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Run, RunLogLine } from '@conduit/sdk';
import { App } from '../src/app.js';
import { eventStream, job, json, page, pipeline, runOf, stubApi } from './fake-api.js';

const line = (seq: number, level: RunLogLine['level'], message: string, node_id: string | null = null): RunLogLine => ({
  seq,
  ts: '2026-11-25T10:00:01.000Z',
  level,
  message,
  node_id,
});

const openRun = () => {
  sessionStorage.setItem('conduit.apiKey', 'cnd_abcdefgh_secret');
  window.history.replaceState(null, '', '/jobs/job_1/runs/run_1');
};

const common = {
  'GET /v2/projects': () => json(page([])),
  'GET /v2/pipelines/:id': () => json(pipeline),
  'GET /v2/jobs/:id': () => json(job),
};

describe('run page', () => {
  it('shows the failed node in red with its error, and the live log filtered by level on the server', async () => {
    const failed: Run = {
      ...runOf('failed', { orders: 'succeeded', big: 'failed', out: 'skipped' }),
      error: { code: 'node_failed', message: 'relation "orders" does not exist', node_id: 'big' },
    };
    failed.nodes[1]!.error = { message: 'relation "orders" does not exist' };
    const { requests } = stubApi({
      ...common,
      'GET /v2/jobs/:id/runs/:run': () => json(failed),
      'GET /v2/jobs/:id/runs/:run/logs': (_req, url) =>
        eventStream(
          [
            line(1, 'info', 'reading orders', 'orders'),
            line(2, 'error', 'relation "orders" does not exist', 'big'),
          ].filter((l) => !url.searchParams.get('level') || l.level === url.searchParams.get('level')),
        ),
    });
    openRun();
    render(<App />);
    expect((await screen.findByTestId('run-status')).textContent).toBe('failed');
    expect(screen.getByRole('alert').textContent).toBe('Node big failed: relation "orders" does not exist');
    const bigRow = await screen.findByRole('row', { name: /big/ });
    expect(within(bigRow).getByText('failed').className).toContain('state-failed');
    expect(bigRow.textContent).toContain('relation "orders" does not exist');
    expect(screen.queryByRole('button', { name: 'Cancel run' })).toBeNull();

    const log = screen.getByRole('log', { name: 'Run log' });
    await screen.findByText('run ended: log complete');
    expect(within(log).getAllByRole('listitem')).toHaveLength(2);
    await userEvent.selectOptions(screen.getByLabelText('Level'), 'error');
    await screen.findByText('run ended: log complete');
    expect(
      within(log)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([expect.stringContaining('relation "orders" does not exist')]);
    const streams = requests.filter((r) => r.url.includes('/logs'));
    expect(streams.map((r) => r.headers.get('accept'))).toContain('text/event-stream');
    expect(streams.at(-1)!.url).toContain('level=error');
  });

  it('cancels a running run', async () => {
    let run = runOf('running', { orders: 'running' });
    const { requests } = stubApi({
      ...common,
      'GET /v2/jobs/:id/runs/:run': () => json(run),
      'POST /v2/jobs/:id/runs/:run/cancel': () => {
        run = runOf('canceled', { orders: 'canceled' });
        return json(run);
      },
      'GET /v2/jobs/:id/runs/:run/logs': () => eventStream([]),
    });
    openRun();
    render(<App />);
    expect((await screen.findByTestId('run-status')).textContent).toBe('running');
    await userEvent.click(screen.getByRole('button', { name: 'Cancel run' }));
    expect((await screen.findByTestId('run-status')).textContent).toBe('canceled');
    expect(requests.some((r) => r.method === 'POST' && r.url.endsWith('/runs/run_1/cancel'))).toBe(true);
    expect(screen.queryByRole('button', { name: 'Cancel run' })).toBeNull();
  });
});
