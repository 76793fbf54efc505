import type { ConnectionTestResult, Connector, ConnectorType } from '@conduit/sdk';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { App } from '../src/app.js';
import { json, page, problem, stubApi } from './fake-api.js';

const signedInAt = (path: string) => {
  sessionStorage.setItem('conduit.apiKey', 'cnd_abcdefgh_secret');
  window.history.replaceState(null, '', path);
};

const postgres: ConnectorType = {
  type: 'postgres',
  category: 'database',
  description: 'PostgreSQL database.',
  roles: ['source', 'sink', 'sql'],
  config_schema: {
    type: 'object',
    properties: {
      host: { type: 'string', description: 'Host name or IP address' },
      port: { type: 'integer', default: 5432 },
      database: { type: 'string' },
      user: { type: 'string' },
      password: { type: 'string', writeOnly: true, 'x-secret': true },
      ssl: { type: 'string', enum: ['disable', 'require', 'verify-full'], default: 'disable' },
    },
    required: ['host', 'database', 'user'],
  },
  secret_fields: ['password'],
  location_fields: ['host', 'port', 'database'],
};
const file: ConnectorType = {
  type: 'file',
  category: 'files',
  description: 'Local files.',
  roles: ['source', 'sink'],
  config_schema: { type: 'object', properties: { path: { type: 'string' } } },
  secret_fields: [],
  location_fields: ['path'],
};

const at = '2026-11-25T10:00:00.000Z';
const connector = (id: string, name: string, type: string, config: Record<string, unknown> = {}): Connector => ({
  id,
  project_id: null,
  name,
  type,
  config,
  status: 'untested',
  last_test: null,
  created_at: at,
  updated_at: at,
});

const passed: ConnectionTestResult = {
  ok: true,
  latency_ms: 42.4,
  message: 'connected to PostgreSQL 17.2',
  error_class: null,
  checks: [
    { name: 'resolve', ok: true, latency_ms: 1.2, message: '127.0.0.1' },
    { name: 'connect', ok: true, latency_ms: 12, message: 'TCP connected' },
    { name: 'authenticate', ok: true, latency_ms: 29, message: 'as app' },
  ],
  details: { server_version: '17.2' },
  tested_at: at,
};

describe('connectors page', () => {
  it('lists connectors under their type’s category', async () => {
    stubApi({
      'GET /v2/connector-types': () => json({ data: [postgres, file] }),
      'GET /v2/connectors': () =>
        json(page([connector('con_1', 'warehouse', 'postgres'), connector('con_2', 'landing', 'file')])),
    });
    signedInAt('/');
    render(<App />);
    await userEvent.click(await screen.findByRole('link', { name: 'Connectors' }));
    const database = await screen.findByRole('region', { name: 'database' });
    expect(within(database).getByRole('link', { name: 'warehouse' }).getAttribute('href')).toBe('/connectors/con_1');
    expect(within(screen.getByRole('region', { name: 'files' })).getByRole('link', { name: 'landing' })).toBeTruthy();
  });

  it('says what to do when there are none', async () => {
    stubApi({
      'GET /v2/connector-types': () => json({ data: [postgres] }),
      'GET /v2/connectors': () => json(page([])),
    });
    signedInAt('/connectors');
    render(<App />);
    expect(await screen.findByText('No connectors yet.')).toBeTruthy();
  });

  it('creates a connector from the form its type’s schema makes, then tests it and shows each check', async () => {
    let created: Record<string, unknown> | undefined;
    const stored = connector('con_9', 'warehouse', 'postgres', {
      host: 'db.local',
      port: 5432,
      database: 'sales',
      user: 'app',
      password: '********',
      ssl: 'disable',
    });
    stubApi({
      'GET /v2/connector-types': () => json({ data: [postgres, file] }),
      'POST /v2/connectors': async (request) => {
        created = (await request.json()) as Record<string, unknown>;
        return json(stored, 201);
      },
      'GET /v2/connectors/:id': () => json(stored),
      'POST /v2/connectors/:id/test': () => json(passed),
    });
    signedInAt('/connectors/new');
    render(<App />);
    await userEvent.type(await screen.findByLabelText('Name (required)'), 'warehouse');
    await userEvent.selectOptions(screen.getByLabelText('Type (required)'), 'postgres');
    await userEvent.click(screen.getByRole('button', { name: 'Create connector' }));
    expect(screen.getByLabelText('host (required)').getAttribute('aria-invalid')).toBe('true');
    expect(created).toBeUndefined();

    await userEvent.type(screen.getByLabelText('host (required)'), 'db.local');
    await userEvent.type(screen.getByLabelText('database (required)'), 'sales');
    await userEvent.type(screen.getByLabelText('user (required)'), 'app');
    const password = screen.getByLabelText('password');
    expect(password.getAttribute('type')).toBe('password');
    await userEvent.type(password, 's3cret');
    await userEvent.click(screen.getByRole('button', { name: 'Create connector' }));
    // Empty fields are left to the type's defaults.
    expect(created).toEqual({
      name: 'warehouse',
      type: 'postgres',
      config: { host: 'db.local', database: 'sales', user: 'app', password: 's3cret' },
    });

    expect(await screen.findByRole('heading', { level: 1, name: /warehouse/ })).toBeTruthy();
    expect(window.location.pathname).toBe('/connectors/con_9');
    const storedPassword = screen.getByLabelText<HTMLInputElement>('password');
    expect([storedPassword.type, storedPassword.value]).toEqual(['password', '********']);

    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    const result = await screen.findByRole('region', { name: /Connection works/ });
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('warehouse ok');
    const rows = within(within(result).getByRole('table'))
      .getAllByRole('row')
      .slice(1)
      .map((row) => Array.from(row.children, (cell) => cell.textContent));
    expect(rows).toEqual([
      ['resolve', 'ok', '1 ms', '127.0.0.1'],
      ['connect', 'ok', '12 ms', 'TCP connected'],
      ['authenticate', 'ok', '29 ms', 'as app'],
    ]);
  });

  it('keeps a stored secret by sending ******** back, and shows the API’s field errors beside their inputs', async () => {
    const bodies: unknown[] = [];
    const stored = connector('con_1', 'warehouse', 'postgres', {
      host: 'db.local',
      port: 5432,
      database: 'sales',
      user: 'app',
      password: '********',
      ssl: 'disable',
    });
    stubApi({
      'GET /v2/connector-types': () => json({ data: [postgres] }),
      'GET /v2/connectors/:id': () => json(stored),
      'PUT /v2/connectors/:id': async (request) => {
        bodies.push(await request.json());
        return bodies.length === 1
          ? new Response(
              JSON.stringify({
                type: '/problems/validation_failed',
                title: 'Validation failed',
                status: 422,
                code: 'validation_failed',
                detail: 'the config does not fit the postgres schema',
                instance: '/v2/connectors/con_1',
                request_id: 'req',
                errors: [{ path: 'config.port', code: 'too_big', message: 'at most 65535' }],
              }),
              { status: 422, headers: { 'content-type': 'application/problem+json' } },
            )
          : json({ ...stored, updated_at: '2026-11-25T11:00:00.000Z' });
      },
      'POST /v2/connectors/:id/test': () => problem(404, 'not_found', 'connector con_1 does not exist'),
    });
    signedInAt('/connectors/con_1');
    render(<App />);
    const port = await screen.findByLabelText('port');
    await userEvent.clear(port);
    await userEvent.type(port, '70000');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('at most 65535')).toBeTruthy();
    expect(port.getAttribute('aria-invalid')).toBe('true');
    expect(bodies[0]).toMatchObject({ config: { port: 70000, password: '********' } });

    await userEvent.clear(port);
    await userEvent.type(port, '5433');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved. Test it to check the new settings.')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect((await screen.findByRole('alert')).textContent).toBe('connector con_1 does not exist');
  });
});
