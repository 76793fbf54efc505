import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { App } from '../src/app.js';
import { json, page, problem, project, stubApi, whoAmI } from './fake-api.js';

const KEY = 'cnd_abcdefgh_secret';

describe('sign-in', () => {
  it('refuses a key the API does not know, saying what to do', async () => {
    stubApi({ 'GET /v2/whoami': () => problem(401, 'unauthenticated', 'the API key is not valid') });
    render(<App />);
    await userEvent.type(screen.getByLabelText('API key'), 'cnd_wrong{Enter}');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('the API key is not valid');
    expect(alert.textContent).toContain('sign in again');
    expect(sessionStorage.length).toBe(0);
  });

  it("keeps a working key in session storage only, shows the tenant's name, and lists the projects", async () => {
    const { requests } = stubApi({ 'GET /v2/projects': () => json(page([project])) });
    render(<App />);
    await userEvent.type(screen.getByLabelText('API key'), KEY);
    await userEvent.keyboard('{Enter}');
    expect(await screen.findByRole('link', { name: 'Sales' })).toBeTruthy();
    expect(screen.getByText(/^Signed in to/).textContent).toBe('Signed in to Acme Corp (read, write)');
    expect(sessionStorage.getItem('conduit.apiKey')).toBe(KEY);
    expect(window.location.href).not.toContain(KEY);
    expect(requests.every((r) => r.headers.get('x-api-key') === KEY && !r.url.includes(KEY))).toBe(true);

    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(screen.getByLabelText('API key')).toBeTruthy();
    expect(sessionStorage.length).toBe(0);
  });

  it('tells a tenant without projects how to make one, naming an unnamed tenant by its id', async () => {
    stubApi({
      'GET /v2/projects': () => json(page([])),
      'GET /v2/whoami': () => json({ ...whoAmI, tenant: { id: 'tnt_jwt_only', name: null } }),
    });
    sessionStorage.setItem('conduit.apiKey', KEY);
    render(<App />);
    expect((await screen.findByText('No projects yet.')).parentElement!.textContent).toContain('conduit apply');
    expect(screen.getByTestId('tenant').textContent).toBe('tnt_jwt_only');
  });
});
