import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Dag, PipelineValidation } from '@conduit/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../src/app.js';
import { VALIDATE_AFTER_MS } from '../src/pipelines/use-draft-validation.js';
import { dag, json, page, pipeline, stubApi, validation } from './fake-api.js';

// The pipeline editor validates its draft with POST /v2/pipelines/{id}/validate and `{ dag }` as it is typed.

const signedInAt = (path: string) => {
  sessionStorage.setItem('conduit.apiKey', 'cnd_abcdefgh_secret');
  window.history.replaceState(null, '', path);
};

/** The fake DAG with `change` applied to a deep copy. */
function edited(change: (draft: { nodes: Record<string, unknown>[]; edges: Record<string, unknown>[] }) => void): Dag {
  const copy = JSON.parse(JSON.stringify(dag)) as {
    nodes: Record<string, unknown>[];
    edges: Record<string, unknown>[];
  };
  change(copy);
  return copy as unknown as Dag;
}

/**
 * The pipeline page's routes; Validate answers the saved pipeline's validation without a body, and `answer(dag)` for
 * a draft, whose DAG is recorded in `drafts`.
 */
function pipelineApi(answer: (dag: Dag) => Response | Promise<Response>) {
  const drafts: Dag[] = [];
  const api = stubApi({
    'GET /v2/pipelines/:id': () => json(pipeline),
    'GET /v2/jobs': () => json(page([])),
    'POST /v2/pipelines/:id/validate': async (request) => {
      const body = await request.text();
      if (body === '') return json(validation);
      const draft = (JSON.parse(body) as { dag: Dag }).dag;
      drafts.push(draft);
      return answer(draft);
    },
    'PUT /v2/pipelines/:id': async (request) => {
      const body = (await request.json()) as { dag: Dag };
      return json({ ...pipeline, dag: body.dag, version: 2, validation: { ...validation, execution_order: [] } });
    },
  });
  return { drafts, requests: api.requests };
}

const invalidAnswer = (errors: PipelineValidation['errors']): PipelineValidation => ({
  ...validation,
  valid: false,
  errors,
  execution_order: [],
});

const typeDraft = async (draft: Dag) => {
  const editor = await screen.findByLabelText('The DAG as JSON');
  fireEvent.change(editor, { target: { value: JSON.stringify(draft, null, 2) } });
};

const rowOf = (id: string) =>
  within(screen.getByRole('table', { name: 'Nodes by execution level' })).getByRole('row', { name: new RegExp(id) });

afterEach(() => {
  vi.useRealTimers();
});

describe('the DAG editor', () => {
  it('validates the draft as it is typed: its errors on its nodes and listed with their paths, nothing saved', async () => {
    const draft = edited((d) => {
      (d.nodes[2]!['config'] as Record<string, unknown>)['mode'] = 'sideways';
    });
    const { drafts, requests } = pipelineApi(() =>
      json(
        invalidAnswer([
          {
            code: 'invalid_node_config',
            message: 'mode is one of append, overwrite, upsert',
            node_id: 'out',
            path: 'nodes[2].config.mode',
          },
          {
            code: 'when_without_decision',
            message: 'when is only for edges out of a decision node',
            edge: { from: 'big', to: 'out' },
            path: 'edges[1].when',
          },
        ]),
      ),
    );
    signedInAt('/pipelines/pip_1');
    render(<App />);
    await typeDraft(draft);
    const problems = await screen.findByRole('list', { name: 'Problems with the draft' });
    expect(
      within(problems)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'nodes[2].config.mode mode is one of append, overwrite, upsert',
      'edges[1].when when is only for edges out of a decision node',
    ]);
    expect(drafts).toEqual([draft]);
    // The graph draws the draft, with the error on its node; the saved pipeline is untouched.
    await waitFor(() => expect(rowOf('out').textContent).toContain('mode is one of append, overwrite, upsert'));
    expect(screen.getByRole('group', { name: 'Your draft of pipeline big-orders (not saved)' })).toBeTruthy();
    expect(rowOf('orders').textContent).not.toContain('mode is one of');
    expect(requests.filter((r) => r.method === 'PUT')).toEqual([]);
    expect(screen.getByRole('status').textContent).toBe('3 execution levels, 0 warnings');
  });

  it("shows a valid draft's execution levels, and Save makes it the pipeline's next version", async () => {
    const draft = edited((d) => {
      d.nodes.push({ id: 'small', type: 'transform', config: { sql: 'select * from orders where amount <= 100' } });
      d.edges.push({ from: 'orders', to: 'small' });
    });
    pipelineApi(() => json({ ...validation, execution_order: [['orders'], ['big', 'small'], ['out']] }));
    signedInAt('/pipelines/pip_1');
    render(<App />);
    await typeDraft(draft);
    const levels = await screen.findByRole('list', { name: 'Execution levels of the draft' });
    expect(
      within(levels)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['Level 1: orders', 'Level 2: big, small', 'Level 3: out']);
    await waitFor(() => expect(rowOf('small').children[0]!.textContent).toBe('2'));

    await userEvent.click(screen.getByRole('button', { name: 'Save and validate' }));
    await screen.findByText('Saved version 2: valid.');
    // Saved: the graph is the pipeline's again, and there is no draft to validate.
    expect(await screen.findByRole('group', { name: 'The DAG of pipeline big-orders' })).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Execution levels of the draft' })).toBeNull();
  });

  it('has one request in flight, sends the newest draft next, and drops the answer of an older one', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const answers: ((response: Response) => void)[] = [];
    const { drafts } = pipelineApi(() => new Promise<Response>((resolve) => answers.push(resolve)));
    const pause = () => act(() => vi.advanceTimersByTimeAsync(VALIDATE_AFTER_MS));
    signedInAt('/pipelines/pip_1');
    render(<App />);
    const [a, b, c] = ['a', 'b', 'c'].map((table) =>
      edited((d) => {
        (d.nodes[0]!['config'] as Record<string, unknown>)['table'] = table;
      }),
    );
    await typeDraft(a!);
    await pause();
    await waitFor(() => expect(drafts).toHaveLength(1));
    expect(screen.getByText('Validating the draft…')).toBeTruthy();
    await typeDraft(b!);
    await pause();
    await typeDraft(c!);
    await pause();
    expect(drafts).toHaveLength(1);

    act(() =>
      answers[0]!(json(invalidAnswer([{ code: 'unknown_connector', message: 'answer for a', node_id: 'orders' }]))),
    );
    await waitFor(() => expect(drafts).toHaveLength(2));
    expect(drafts[1]).toEqual(c);
    // A's answer came while C was the text: it is not shown, C's is awaited.
    await act(async () => {});
    expect(screen.queryByText(/answer for a/)).toBeNull();
    expect(screen.getByText('Validating the draft…')).toBeTruthy();
    act(() =>
      answers[1]!(json(invalidAnswer([{ code: 'unknown_connector', message: 'answer for c', node_id: 'orders' }]))),
    );
    await screen.findByText('answer for c');
    expect(screen.queryByText(/answer for a/)).toBeNull();
    expect(drafts).toHaveLength(2);
  });

  it('lists what saving the draft would be refused for (a 422), with the paths at fault', async () => {
    const draft = edited((d) => {
      (d.nodes[1]!['config'] as Record<string, unknown>)['sql'] = "select * from read_csv('/etc/passwd')";
    });
    pipelineApi(() =>
      json(
        {
          type: '/problems/validation-failed',
          title: 'Validation failed',
          status: 422,
          code: 'validation_failed',
          detail: '1 field is invalid',
          errors: [{ path: 'dag.nodes[1].config.sql', code: 'sql_not_allowed', message: 'node "big": reads a file' }],
          instance: '/v2/pipelines/pip_1/validate',
          request_id: 'req',
        },
        422,
      ),
    );
    signedInAt('/pipelines/pip_1');
    render(<App />);
    await typeDraft(draft);
    await screen.findByText('Saving this draft would be refused: 1 field is invalid');
    const problems = screen.getByRole('list', { name: 'Problems with the draft' });
    expect(within(problems).getByRole('listitem').textContent).toBe('dag.nodes[1].config.sql node "big": reads a file');
    // The graph stays the saved pipeline's.
    expect(screen.getByRole('group', { name: 'The DAG of pipeline big-orders' })).toBeTruthy();
  });
});
