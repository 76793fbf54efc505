// One load run with autocannon (programmatic), the same settings for every target of a bench.
import autocannon from 'autocannon';
import { round } from './report.mjs';

export const LOAD = Object.freeze({
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  durationSec: Number(process.env.BENCH_DURATION_SEC ?? 10),
  warmupSec: Number(process.env.BENCH_WARMUP_SEC ?? 2),
});

async function fire(url, headers, durationSec) {
  return autocannon({ url, headers, connections: LOAD.connections, duration: durationSec, timeout: 10 });
}

/** Load before a measured run: connections opened, JIT warm, pools filled. */
export async function warmUp(url, headers = {}) {
  await fire(url, headers, LOAD.warmupSec);
}

/**
 * Measures the target (warm it up first). Throws when any measured response was not a 2xx (a 401 or 429
 * answers fast and would flatter the figure) or a connection failed.
 */
export async function measure(label, url, headers = {}) {
  const r = await fire(url, headers, LOAD.durationSec);
  const figures = {
    req_per_sec: round(r.requests.average, 1),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    requests: r.requests.total,
    non_2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
  if (r.non2xx > 0 || r.errors > 0 || r.requests.total === 0) {
    throw new Error(
      `${label}: the run is not clean: ${JSON.stringify({ ...figures, status_codes: r.statusCodeStats })}`,
    );
  }
  return figures;
}
