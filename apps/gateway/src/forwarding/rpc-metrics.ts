import type { Registry } from 'prom-client';
import { BucketHistogram } from '@conduit/service-kit';

export type RpcOutcome = 'ok' | 'error' | 'timeout' | 'failure';

const NAME = 'rpc_request_duration_seconds';

/**
 * `rpc_request_duration_seconds{pattern,outcome}`: how long the gateway waits for each backend operation. outcome is
 * `ok`, `error` (a domain error answered), `timeout` (no answer in time) or `failure` (transport or malformed reply).
 * Registered once per registry, whoever asks first. Observed on every forwarded request, hence a BucketHistogram.
 */
export function rpcDurationHistogram(registry: Registry): BucketHistogram<'pattern' | 'outcome'> {
  const existing = registry.getSingleMetric(NAME) as unknown;
  if (existing instanceof BucketHistogram) return existing as BucketHistogram<'pattern' | 'outcome'>;
  return new BucketHistogram({
    name: NAME,
    help: 'Duration of RPC requests from the gateway to the backend services',
    labelNames: ['pattern', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
}
