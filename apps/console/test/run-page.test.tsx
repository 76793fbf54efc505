import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Dag, Run, RunLogLine } from '@conduit/sdk';
import { App } from '../src/app.js';
import { dag, eventStream, job, json, page, pipeline, runDagOf, runOf, stubApi } from './fake-api.js';

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
  'GET /v2/jobs/:id/runs/:run/dag': () => json(runDagOf()),
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
    const dagTable = await screen.findByRole('table', { name: 'Nodes by execution level' });
    const bigRow = within(dagTable).getByRole('row', { name: /big/ });
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

  it('draws the nodes on a timeline with their rows, shows the LLM decision, and filters the log by node', async () => {
    const done: Run = {
      ...runOf('succeeded', { orders: 'succeeded', big: 'succeeded', out: 'succeeded' }),
      finished_at: '2026-11-25T10:00:10.000Z',
      duration_ms: 10_000,
    };
    const times = [
      ['2026-11-25T10:00:00.000Z', '2026-11-25T10:00:02.000Z', 0, 120],
      ['2026-11-25T10:00:02.000Z', '2026-11-25T10:00:07.000Z', 120, 30],
      ['2026-11-25T10:00:07.000Z', '2026-11-25T10:00:10.000Z', 30, 30],
    ] as const;
    done.nodes.forEach((node, i) => {
      const [started_at, finished_at, rows_in, rows_out] = times[i]!;
      Object.assign(node, { started_at, finished_at, rows_in, rows_out });
    });
    Object.assign(done.nodes[1]!, {
      type: 'decision',
      output: { choice: 'big', reason: 'amounts above 100 dominate', confidence: 0.87 },
    });
    const { requests } = stubApi({
      ...common,
      'GET /v2/jobs/:id/runs/:run': () => json(done),
      'GET /v2/jobs/:id/runs/:run/logs': (_req, url) =>
        eventStream(url.searchParams.get('node_id') === 'out' ? [line(3, 'info', 'wrote 30 rows', 'out')] : []),
    });
    openRun();
    render(<App />);
    const timeline = await screen.findByRole('table', { name: /Node timeline: 10\.0 s/ });
    const rows = within(timeline)
      .getAllByRole('row')
      .slice(1)
      .map((row) => [
        row.children[0]!.textContent,
        row.children[3]!.textContent,
        row.children[4]!.textContent,
        row.children[5]!.textContent,
      ]);
    expect(rows).toEqual([
      ['orders', '2.0 s', '0', '120'],
      ['big', '5.0 s', '120', '30'],
      ['out', '3.0 s', '30', '30'],
    ]);
    const bar = timeline.querySelector<HTMLElement>('[data-timeline-node="big"] .gantt-bar')!;
    expect([bar.style.left, bar.style.width]).toEqual(['20.00%', '50.00%']);

    const decisions = screen.getByRole('region', { name: 'Decisions' });
    expect(decisions.textContent).toContain('chose big (confidence 87%)');
    expect(decisions.textContent).toContain('amounts above 100 dominate');

    await userEvent.selectOptions(screen.getByLabelText('Node'), 'out');
    await screen.findByText('wrote 30 rows');
    expect(requests.filter((r) => r.url.includes('/logs')).at(-1)!.url).toContain('node_id=out');
  });

  it("draws the DAG the run ran, not the pipeline's DAG as it is now", async () => {
    // The run ran version 1 (orders -> big -> out); the pipeline has since become version 2 with a node `late`.
    const current = {
      ...pipeline,
      version: 2,
      dag: { nodes: [...dag.nodes, { id: 'late', type: 'sink', config: {} }], edges: dag.edges } as unknown as Dag,
    };
    const { requests } = stubApi({
      ...common,
      'GET /v2/pipelines/:id': () => json(current),
      'GET /v2/jobs/:id/runs/:run': () =>
        json(runOf('succeeded', { orders: 'succeeded', big: 'succeeded', out: 'succeeded' })),
      'GET /v2/jobs/:id/runs/:run/logs': () => eventStream([]),
    });
    openRun();
    render(<App />);
    const dagTable = await screen.findByRole('table', { name: 'Nodes by execution level' });
    const nodeRows = within(dagTable).getAllByRole('row').slice(1);
    // Levels from the run's DAG itself (a run's DAG comes without a validation).
    expect(nodeRows.map((row) => [row.children[0]!.textContent, row.children[1]!.textContent])).toEqual([
      ['1', 'orders'],
      ['2', 'big'],
      ['3', 'out'],
    ]);
    expect(within(dagTable).queryByText('late')).toBeNull();
    expect(screen.getByRole('group', { name: /pipeline version 1\)/ })).toBeTruthy();
    expect(requests.some((r) => r.url.endsWith('/v2/jobs/job_1/runs/run_1/dag'))).toBe(true);
    expect(requests.some((r) => new URL(r.url).pathname.startsWith('/v2/pipelines/'))).toBe(false);
  });
});
