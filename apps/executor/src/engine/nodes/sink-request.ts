/** A sink node's write request, from its config. */
import type { WriteMode, WriteRequest } from '@conduit/connectors';
import { NodeFailure } from '../node-failure.js';
import type { NodeContext } from '../node-context.js';
import { withoutEngineKeys } from './engine-keys.js';

const MODES: readonly WriteMode[] = ['append', 'overwrite', 'upsert'];

/** The driver's write request from the node's config; throws a NodeFailure for an unknown mode. */
export function sinkRequestOf(
  ctx: Pick<NodeContext, 'node' | 'signal' | 'tenantId' | 'pool' | 'workspace'>,
): WriteRequest {
  const { mode: rawMode, key, table, ...rest } = withoutEngineKeys(ctx.node.config);
  const mode = (rawMode ?? 'append') as WriteMode;
  if (!MODES.includes(mode)) throw new NodeFailure(`unknown sink mode "${String(rawMode)}"`, false);
  return {
    ...rest,
    table: table as string,
    mode,
    ...(Array.isArray(key) ? { key: key as string[] } : {}),
    signal: ctx.signal,
    tenantId: ctx.tenantId,
    // Set after the node's config: a config key of these names never stands in for the executor's pools or limits.
    pool: ctx.pool,
    duckdbLimits: ctx.workspace.duckdbLimits,
  };
}
