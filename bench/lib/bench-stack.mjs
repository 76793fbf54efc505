/**
 * The whole stack as production runs it: `NODE_ENV=production`, so what is on only in development and tests (the
 * gateway parsing every RPC reply against its schema, docs/rpc.md) does not count in a figure.
 */
import { startStack } from '@conduit/testing';

export function startBenchStack(env = {}, servers = {}) {
  return startStack({ NODE_ENV: 'production', ...env }, servers);
}
