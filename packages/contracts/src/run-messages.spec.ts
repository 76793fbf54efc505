import { RUN_NODE_COLUMNS_MAX, runReportSchema } from './index.js';

const node = {
  id: 'orders',
  type: 'source',
  status: 'succeeded',
  started_at: '2026-11-24T00:00:00.000Z',
  finished_at: '2026-11-24T00:00:01.000Z',
  attempts: 1,
  rows_in: 0,
  rows_out: 3,
  output: null,
  error: null,
};
const report = (n: Record<string, unknown>) => ({
  event_id: 'evt_1',
  run_id: 'run_1',
  tenant_id: 'tnt_1',
  attempt: 1,
  epoch: 1,
  at: '2026-11-24T00:00:01.000Z',
  type: 'run.node',
  node: n,
});

describe("run.node reports carry the node's columns", () => {
  it('takes columns with DuckDB types, a source type, or no type (CSV hand-off)', () => {
    const columns = [
      { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'numeric(12,2)' },
      { name: 'id', type: 'INTEGER' },
      { name: 'note', type: null },
    ];
    const parsed = runReportSchema.parse(report({ ...node, columns }));
    expect(parsed.type === 'run.node' && parsed.node.columns).toEqual(columns);
  });

  it('takes a node without columns (an executor older than the field) and null (no output yet)', () => {
    const old = runReportSchema.parse(report(node));
    expect(old.type === 'run.node' && old.node.columns).toBeUndefined();
    expect(runReportSchema.safeParse(report({ ...node, columns: null })).success).toBe(true);
  });

  it('refuses more columns than the bound, overlong names and types, and unknown fields', () => {
    const many = Array.from({ length: RUN_NODE_COLUMNS_MAX + 1 }, (_, i) => ({ name: `c${i}`, type: 'INTEGER' }));
    expect(runReportSchema.safeParse(report({ ...node, columns: many })).success).toBe(false);
    expect(runReportSchema.safeParse(report({ ...node, columns: many.slice(0, RUN_NODE_COLUMNS_MAX) })).success).toBe(
      true,
    );
    expect(
      runReportSchema.safeParse(report({ ...node, columns: [{ name: 'x'.repeat(257), type: 'INTEGER' }] })).success,
    ).toBe(false);
    expect(
      runReportSchema.safeParse(report({ ...node, columns: [{ name: 'x', type: 'T'.repeat(257) }] })).success,
    ).toBe(false);
    expect(
      runReportSchema.safeParse(report({ ...node, columns: [{ name: 'x', type: 'INTEGER', value: 1 }] })).success,
    ).toBe(false);
  });
});
