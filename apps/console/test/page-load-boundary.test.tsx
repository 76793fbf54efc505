import { render, screen } from '@testing-library/react';
import { Suspense, lazy, type ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { PageLoadBoundary } from '../src/routing/page-load-boundary.js';

describe('PageLoadBoundary', () => {
  it("says a page's chunk could not be fetched, offers a reload, and clears once another page opens", async () => {
    // React reports the caught error on the console; the test expects it.
    const report = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const Gone = lazy(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module')));
    const page = (routeKey: string, child: ReactNode) => (
      <PageLoadBoundary routeKey={routeKey}>
        <Suspense fallback={<p>Loading…</p>}>{child}</Suspense>
      </PageLoadBoundary>
    );
    const { rerender } = render(page('run', <Gone />));
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to fetch dynamically imported module');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();

    rerender(page('projects', <h1>Projects</h1>));
    expect(screen.getByRole('heading', { name: 'Projects' })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
    report.mockRestore();
  });
});
