import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { App } from '../src/app.js';
import { job, json, page, pipeline, project, stubApi, validation } from './fake-api.js';

const signedInAt = (path: string) => {
  sessionStorage.setItem('conduit.apiKey', 'cnd_abcdefgh_secret');
  window.history.replaceState(null, '', path);
};

describe('pipeline page', () => {
  it('goes from a project to its pipeline and shows the nodes by level with their types', async () => {
    stubApi({
      'GET /v2/projects': () => json(page([project])),
      'GET /v2/projects/:id': () => json(project),
      'GET /v2/connectors': () => json(page([])),
      'GET /v2/pipelines': () => json(page([pipeline])),
      'GET /v2/pipelines/:id': () => json(pipeline),
      'POST /v2/pipelines/:id/validate': () => json(validation),
      'GET /v2/jobs': () => json(page([job])),
    });
    signedInAt('/');
    render(<App />);
    await userEvent.click(await screen.findByRole('link', { name: 'Sales' }));
    await userEvent.click(await screen.findByRole('link', { name: 'big-orders' }));
    const table = await screen.findByRole('table', { name: 'Nodes by execution level' });
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) => Array.from(row.children, (cell) => cell.textContent));
    expect(rows).toEqual([
      ['1', 'orders', 'source', '–'],
      ['2', 'big', 'transform', '–'],
      ['3', 'out', 'sink', '–'],
    ]);
    expect(screen.getByRole('status').textContent).toBe('3 execution levels, 0 warnings');
    expect(window.location.pathname).toBe('/pipelines/pip_1');
    expect(screen.getByRole('link', { name: 'nightly' }).getAttribute('href')).toBe('/jobs/job_1');
  });

  it('shows the validate endpoint errors on the nodes they concern', async () => {
    const invalid = {
      ...validation,
      valid: false,
      execution_order: [],
      errors: [{ code: 'connector_not_found', message: 'connector con_1 does not exist', node_id: 'orders' }],
    };
    stubApi({
      'GET /v2/pipelines/:id': () => json({ ...pipeline, status: 'invalid', validation: invalid }),
      'POST /v2/pipelines/:id/validate': () => json(invalid),
      'GET /v2/jobs': () => json(page([])),
      'GET /v2/projects': () => json(page([project])),
    });
    signedInAt('/pipelines/pip_1');
    render(<App />);
    const row = await screen.findByRole('row', { name: /orders/ });
    expect(row.textContent).toContain('connector con_1 does not exist');
    expect(screen.getByRole('status').textContent).toContain('1 validation errors');
    expect(screen.getByText('No job runs this pipeline yet.')).toBeTruthy();
  });

  it('checks the DAG JSON as it is typed, and shows the errors of the saved version on its nodes', async () => {
    const bodies: { dag: typeof pipeline.dag }[] = [];
    const invalid = {
      ...validation,
      valid: false,
      execution_order: [],
      errors: [{ code: 'unknown_connector', message: 'connector con_2 does not exist', node_id: 'orders' }],
    };
    stubApi({
      'GET /v2/pipelines/:id': () => json(pipeline),
      'POST /v2/pipelines/:id/validate': () => json(validation),
      'GET /v2/jobs': () => json(page([])),
      'PUT /v2/pipelines/:id': async (request) => {
        const body = (await request.json()) as { dag: typeof pipeline.dag };
        bodies.push(body);
        return json({ ...pipeline, dag: body.dag, version: 2, status: 'invalid', validation: invalid });
      },
    });
    signedInAt('/pipelines/pip_1');
    render(<App />);
    const editor = await screen.findByLabelText('The DAG as JSON');
    await userEvent.clear(editor);
    await userEvent.type(editor, '{{"nodes": [[{{"id": 1}], "edges": [[]}');
    const problems = await screen.findByRole('list', { name: "Problems with the DAG's shape" });
    // Under load a pause between keys may list a half-typed text's problems first.
    expect(await within(problems).findByText('nodes[0] needs a string "id".')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Save and validate' })).toHaveProperty('disabled', true);

    const edited = { ...pipeline.dag, nodes: pipeline.dag.nodes.map((n) => ({ ...n, config: { ...n.config } })) };
    (edited.nodes[0]!.config as { connector_id: string }).connector_id = 'con_2';
    await userEvent.clear(editor);
    await userEvent.click(editor);
    await userEvent.paste(JSON.stringify(edited));
    await screen.findByText(/Shape OK \(3 nodes, 2 edges\)/);
    await userEvent.click(screen.getByRole('button', { name: 'Save and validate' }));
    expect(await screen.findByText(/Saved version 2: 1 validation errors/)).toBeTruthy();
    expect(bodies[0]!.dag).toEqual(edited);
    const row = await screen.findByRole('row', { name: /orders/ });
    expect(row.textContent).toContain('connector con_2 does not exist');
  });
});
