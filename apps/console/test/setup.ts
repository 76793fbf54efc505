import { cleanup } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { loadAllPages } from '../src/routing/page-chunks.js';

// The pages load lazily in the console; compiled up front here, a test's wait is for its page, not for vitest.
await loadAllPages();

afterEach(() => {
  cleanup();
  sessionStorage.clear();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});
