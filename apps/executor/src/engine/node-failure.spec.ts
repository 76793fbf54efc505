import { NodeFailure, toNodeFailure } from './node-failure.js';

describe('toNodeFailure', () => {
  const advice =
    '\n\nPossible solutions:\n* Reducing the number of threads (SET threads=X)\n' +
    "* Increasing the memory limit (SET memory_limit='...GB')\n\nSee also https://duckdb.org/docs";

  it("keeps DuckDB's out-of-memory line without the SET advice a tenant may not follow, retryable as before", () => {
    const failure = toNodeFailure(
      new Error(`Out of Memory Error: Failed to allocate block of 2147483648 bytes${advice}`),
    );
    expect(failure).toBeInstanceOf(NodeFailure);
    expect(failure.message).toBe(
      'Out of Memory Error: Failed to allocate block of 2147483648 bytes: the statement needs more memory than a run may use here',
    );
    expect(failure.retryable).toBe(true);
  });

  it('leaves other DuckDB errors as they are', () => {
    const failure = toNodeFailure(new Error('Binder Error: Referenced column "x" not found'));
    expect(failure.message).toBe('Binder Error: Referenced column "x" not found');
    expect(failure.retryable).toBe(false);
  });
});
