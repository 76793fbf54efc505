/**
 * The whole stack as production runs it: `NODE_ENV=production`, so what is on only in development and tests (the
 * gateway parsing every RPC reply against its schema, docs/rpc.md) does not count in a figure. And as it runs past
 * its first 30 s: the scheduler trusts the dispatcher's set of tenants with webhooks from the start
 * (`SCHEDULER_WEBHOOK_TENANTS_DISTRUST_MS`, docs/reliability.md), where a fresh stack sends every run event to the
 * dispatcher for 30 s, which would count in a bench that measures within them.
 */
import { startStack } from '@conduit/testing';

/** Settings a bench run may try from its own environment (`EXECUTOR_CONCURRENCY=8 node runs-cpu.mjs`); every service gets them. */
const TUNABLE = ['EXECUTOR_CONCURRENCY', 'EXECUTOR_NODE_PARALLELISM', 'RUN_MEMORY_LIMIT', 'UV_THREADPOOL_SIZE'];

export function startBenchStack(env = {}, servers = {}) {
  const tried = Object.fromEntries(TUNABLE.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
  return startStack({ NODE_ENV: 'production', SCHEDULER_WEBHOOK_TENANTS_DISTRUST_MS: '0', ...tried, ...env }, servers);
}
