/** The request a source's driver reads with (sink-request.ts builds a sink's). */
import type { ReadRequest } from '@conduit/connectors';
import type { NodeContext } from '../node-context.js';

/**
 * The node's config, then what only the executor sets (set after it, so a config key of these names never stands in
 * for the run's signal, tenant, pools or DuckDB limits).
 */
export function driverRequest(ctx: NodeContext, request: Record<string, unknown>): ReadRequest {
  return {
    ...request,
    signal: ctx.signal,
    tenantId: ctx.tenantId,
    pool: ctx.pool,
    duckdbLimits: ctx.workspace.duckdbLimits,
  };
}
