/** A sink node's write request, from its config. */
import type { WriteMode, WriteRequest } from '@conduit/connectors';
import { NodeFailure } from '../node-failure.js';
import type { NodeContext } from '../node-context.js';

const MODES: readonly WriteMode[] = ['append', 'overwrite', 'upsert'];

/** The driver's write request from the node's config; throws a NodeFailure for an unknown mode. */
export function sinkRequestOf(ctx: NodeContext): WriteRequest {
  const { connector_id: _id, timeout_seconds: _t, retries: _r, mode: rawMode, key, table, ...rest } = ctx.node.config;
  const mode = (rawMode ?? 'append') as WriteMode;
  if (!MODES.includes(mode)) throw new NodeFailure(`unknown sink mode "${String(rawMode)}"`, false);
  return {
    ...rest,
    table: table as string,
    mode,
    ...(Array.isArray(key) ? { key: key as string[] } : {}),
    signal: ctx.signal,
    tenantId: ctx.tenantId,
  };
}
