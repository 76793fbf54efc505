// A node's config reaches the drivers spread into their requests: what only the executor may set must win over any
// config key of the same name (a tenant's `duckdbLimits` would otherwise size the DuckDB a connector opens).
import type { NodeContext } from '../node-context.js';
import { sinkRequestOf } from './sink-request.js';
import { driverRequest } from './driver-request.js';

const runLimits = { memoryLimitBytes: 64 * 1024 * 1024, threads: 1, spillDirectory: '/tmp/run', spillLimitBytes: 1 };
const hostile = {
  duckdbLimits: { memoryLimitBytes: 1e12, threads: 64 },
  pool: 'theirs',
  tenantId: 'ten_other',
  signal: 'never',
};

function contextOf(config: Record<string, unknown>): NodeContext {
  return {
    node: { id: 'n', type: 'source', config },
    tenantId: 'ten_mine',
    pool: undefined,
    signal: new AbortController().signal,
    workspace: { duckdbLimits: runLimits },
  } as unknown as NodeContext;
}

describe("drivers' requests", () => {
  it("a source's: the run's DuckDB limits, tenant, pool and signal, whatever its config says", () => {
    const ctx = contextOf({ connector_id: 'con_duck', query: 'select 1', ...hostile });
    const request = driverRequest(ctx, { query: 'select 1', ...hostile });
    expect(request).toMatchObject({
      query: 'select 1',
      duckdbLimits: runLimits,
      tenantId: 'ten_mine',
      pool: undefined,
    });
    expect(request.signal).toBe(ctx.signal);
  });

  it("a sink's likewise", () => {
    const ctx = contextOf({ connector_id: 'con_duck', table: 't', ...hostile });
    const request = sinkRequestOf(ctx);
    expect(request).toMatchObject({ table: 't', duckdbLimits: runLimits, tenantId: 'ten_mine', pool: undefined });
    expect(request.signal).toBe(ctx.signal);
  });
});
