import type { Histogram } from 'prom-client';

/** Distinct label combinations kept; beyond them observations still count, through the labelled path. */
const MAX_CHILDREN = 1000;

/**
 * `observe(labels, value)` for a histogram observed on every request: each combination of label values gets its
 * child once (`histogram.labels(...)`), so a request costs a Map lookup instead of prom-client hashing and checking
 * a label object every time. Label values go in the order of the histogram's `labelNames`.
 */
export function labelledObserver<L extends string>(
  histogram: Histogram<L>,
): (values: string[], seconds: number) => void {
  const children = new Map<string, { observe(value: number): void }>();
  return (values, seconds) => {
    const key = values.join('\u0000');
    let child = children.get(key);
    if (!child) {
      child = histogram.labels(...values);
      if (children.size < MAX_CHILDREN) children.set(key, child);
    }
    child.observe(seconds);
  };
}
