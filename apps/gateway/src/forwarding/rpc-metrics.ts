import { Histogram, type Registry } from 'prom-client';

export type RpcOutcome = 'ok' | 'error' | 'timeout' | 'failure';

const NAME = 'rpc_request_duration_seconds';

/**
 * `rpc_request_duration_seconds{pattern,outcome}`: how long the gateway waits for each backend operation. outcome is
 * `ok`, `error` (a domain error answered), `timeout` (no answer in time) or `failure` (transport or malformed reply).
 * Registered once per registry, whoever asks first.
 */
export function rpcDurationHistogram(registry: Registry): Histogram<'pattern' | 'outcome'> {
  const existing = registry.getSingleMetric(NAME);
  if (existing) return existing as Histogram<'pattern' | 'outcome'>;
  return new Histogram({
    name: NAME,
    help: 'Duration of RPC requests from the gateway to the backend services',
    labelNames: ['pattern', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
}
