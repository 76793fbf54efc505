// Shared figures and output format of every bench: human lines first, then one final JSON line
// (prefixed, so run-all.mjs can pick it out of whatever else a bench prints).
import { loadavg } from 'node:os';

export const RESULT_PREFIX = 'BENCH_RESULT ';

/** The q-quantile (0..1) of an ascending-sorted array, nearest-rank. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

/** ops/s, mean and p99 (both in microseconds) of per-call durations given in nanoseconds. */
export function summarizeDurations(durationsNs) {
  const sorted = Float64Array.from(durationsNs).sort();
  const totalNs = sorted.reduce((sum, d) => sum + d, 0);
  const meanNs = totalNs / sorted.length;
  return {
    calls: sorted.length,
    ops_per_sec: round(1e9 / meanNs, 1),
    mean_us: round(meanNs / 1000, 2),
    p99_us: round(quantile(sorted, 0.99) / 1000, 2),
  };
}

export function round(value, digits = 2) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Taken when a bench starts, before its own load: high means other work shared the machine's 2 cores. */
const LOAD_AVG_AT_START = round(loadavg()[0] ?? 0, 2);

/** Prints the bench's final machine-readable line: { bench, ...figures, load_avg_1m_at_start }. */
export function printResult(bench, figures) {
  const line = { bench, ...figures, load_avg_1m_at_start: LOAD_AVG_AT_START };
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(line)}\n`);
}
