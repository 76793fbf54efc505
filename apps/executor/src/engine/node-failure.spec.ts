import { NodeFailure, toNodeFailure } from './node-failure.js';

describe('toNodeFailure', () => {
  const advice =
    '\n\nPossible solutions:\n* Reducing the number of threads (SET threads=X)\n' +
    "* Increasing the memory limit (SET memory_limit='...GB')\n\nSee also https://duckdb.org/docs";

  it("keeps DuckDB's out-of-memory line without the SET advice a tenant may not follow", () => {
    const refused = toNodeFailure(
      new Error(`Out of Memory Error: Failed to allocate block of 2147483648 bytes${advice}`),
    );
    expect(refused).toBeInstanceOf(NodeFailure);
    expect(refused.message).toBe(
      'Out of Memory Error: Failed to allocate block of 2147483648 bytes: the statement needs more memory than a run may use here',
    );
    // The executor's data-size limit refused it: another attempt would only take the executor there again.
    expect(refused.retryable).toBe(false);
    // The run's buffer pool was full: other runs' spill or a smaller input may let another attempt pass, as before.
    const pool = toNodeFailure(
      new Error(`Out of Memory Error: could not allocate block of size 256.0 KiB (88.0 MiB/88.0 MiB used)${advice}`),
    );
    expect(pool.message).toBe(
      'Out of Memory Error: could not allocate block of size 256.0 KiB (88.0 MiB/88.0 MiB used): the statement needs more memory than a run may use here',
    );
    expect(pool.retryable).toBe(true);
  });

  it('says the spill cap is disk, though DuckDB words it as memory', () => {
    const failure = toNodeFailure(
      new Error(
        'Out of Memory Error: failed to offload data block of size 192.0 KiB (4.0 MiB/4.0 MiB used).\n' +
          "This limit was set by the 'max_temp_directory_size' setting.",
      ),
    );
    expect(failure.message).toBe(
      "Out of Memory Error: failed to offload data block of size 192.0 KiB (4.0 MiB/4.0 MiB used): the statement needs more disk to spill to than a run may use here (the run's share of the executor's data dir)",
    );
  });

  it('leaves other DuckDB errors as they are', () => {
    const failure = toNodeFailure(new Error('Binder Error: Referenced column "x" not found'));
    expect(failure.message).toBe('Binder Error: Referenced column "x" not found');
    expect(failure.retryable).toBe(false);
  });
});
