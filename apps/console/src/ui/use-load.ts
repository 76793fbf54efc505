// Loads data for a page: loading, failed (with the error) or ready; again when `deps` change or on reload().
import { useCallback, useEffect, useState } from 'react';

export type Load<T> = { state: 'loading' } | { state: 'failed'; error: unknown } | { state: 'ready'; value: T };

export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Load<T> & { reload: () => void } {
  const [result, setResult] = useState<Load<T>>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  useEffect(() => {
    let current = true;
    load().then(
      (value) => current && setResult({ state: 'ready', value }),
      (error: unknown) => current && setResult({ state: 'failed', error }),
    );
    return () => {
      current = false;
    };
    // `load` is a new closure each render; the caller names what it depends on in `deps`.
  }, [...deps, generation]);
  return { ...result, reload };
}
