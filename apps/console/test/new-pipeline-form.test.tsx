import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Connector, Dag } from '@conduit/sdk';
import { describe, expect, it } from 'vitest';
import { App } from '../src/app.js';
import { json, page, pipeline, project, stubApi } from './fake-api.js';

const signedInAt = (path: string) => {
  sessionStorage.setItem('conduit.apiKey', 'cnd_abcdefgh_secret');
  window.history.replaceState(null, '', path);
};

const connector = { id: 'con_9', name: 'shop', type: 'postgres', project_id: project.id } as unknown as Connector;

describe('new pipeline form', () => {
  it("creates a pipeline from a name and a starter DAG on the project's connector, and opens it", async () => {
    const created: { name: string; project_id: string; dag: Dag }[] = [];
    stubApi({
      'GET /v2/projects/:id': () => json(project),
      'GET /v2/pipelines': () => json(page([])),
      'GET /v2/connectors': () => json(page([connector])),
      'POST /v2/pipelines': async (request) => {
        const body = (await request.json()) as (typeof created)[number];
        created.push(body);
        return json({ ...pipeline, id: 'pip_2', name: body.name, dag: body.dag }, 201);
      },
      'GET /v2/pipelines/:id': () => json({ ...pipeline, id: 'pip_2', name: 'copy-orders' }),
      'POST /v2/pipelines/:id/validate': () => json(pipeline.validation),
      'GET /v2/jobs': () => json(page([])),
    });
    signedInAt(`/projects/${project.id}`);
    render(<App />);
    await userEvent.click(await screen.findByRole('button', { name: 'Create pipeline' }));
    const problems = await screen.findByRole('alert', { name: 'Problems creating the pipeline' });
    expect(within(problems).getByText('The name is required.')).toBeTruthy();
    expect(created).toEqual([]);

    await userEvent.type(screen.getByLabelText('Pipeline name (required)'), 'copy-orders');
    await userEvent.click(screen.getByRole('button', { name: 'Create pipeline' }));
    await screen.findByLabelText('The DAG as JSON');
    expect(window.location.pathname).toBe('/pipelines/pip_2');
    expect(created).toEqual([
      {
        name: 'copy-orders',
        project_id: project.id,
        dag: {
          nodes: [
            { id: 'source', type: 'source', config: { connector_id: 'con_9', table: 'orders' } },
            { id: 'sink', type: 'sink', config: { connector_id: 'con_9', table: 'orders_copy', mode: 'append' } },
          ],
          edges: [{ from: 'source', to: 'sink' }],
        },
      },
    ]);
  });
});
