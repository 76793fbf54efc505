import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { App } from '../src/app.js';
import { json, page, problem, project, stubApi } from './fake-api.js';

const signedIn = (path: string) => {
  sessionStorage.setItem('conduit.apiKey', 'cnd_abcdefgh_secret');
  window.history.replaceState(null, '', path);
};

describe('loading and error states', () => {
  it('says what it is loading, then what went wrong and what to try, and Try again loads the page', async () => {
    let answer: () => Response = () => problem(500, 'internal', 'the catalog is down');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    stubApi({
      'GET /v2/projects': async () => {
        await held;
        return answer();
      },
    });
    signedIn('/');
    render(<App />);
    expect(await screen.findByText('Loading projects…')).toBeTruthy();
    release();
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('the catalog is down');
    expect(alert.textContent).toContain('try again in a moment');

    answer = () => json(page([project]));
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('link', { name: 'Sales' })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('sends the user back to the list for a thing that is gone', async () => {
    stubApi({ 'GET /v2/jobs/:id': () => problem(404, 'not_found', 'job job_gone not found') });
    signedIn('/jobs/job_gone');
    render(<App />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('job job_gone not found');
    expect(alert.textContent).toContain('go back to the list');
  });

  it('names a path the console does not know and links to the projects', async () => {
    stubApi({ 'GET /v2/projects': () => json(page([project])) });
    signedIn('/no/such/page');
    render(<App />);
    expect((await screen.findByRole('heading', { name: 'No such page' })).parentElement!.textContent).toContain(
      '/no/such/page',
    );
    await userEvent.click(screen.getByRole('link', { name: 'Go to the projects' }));
    expect(await screen.findByRole('link', { name: 'Sales' })).toBeTruthy();
  });
});
