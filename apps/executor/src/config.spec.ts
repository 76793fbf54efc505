import { ConfigError } from '@conduit/service-kit';
import { loadExecutorConfig } from './config.js';

describe('executor config', () => {
  it('has defaults that fit a local machine', () => {
    const config = loadExecutorConfig({ SECRETS_KEY: '00'.repeat(32) });
    expect(config).toMatchObject({
      // Sized for runs that mostly wait on the systems they read and write.
      EXECUTOR_CONCURRENCY: 8,
      EXECUTOR_PORT: 3103,
      RUN_MEMORY_LIMIT: 88 * 1024 * 1024,
      // Eight runs' scratch takes half of the 32Gi spill volume of k8s/base/executor.yaml, DuckDB's spill the rest.
      EXECUTOR_DATA_DIR_SIZE: 32 * 1024 ** 3,
      RUN_SCRATCH_LIMIT: 2 * 1024 ** 3,
      // The rest of each run's 4GiB share caps DuckDB's spill.
      RUN_SPILL_LIMIT: 2 * 1024 ** 3,
      RUN_LOCK_MS: 30_000,
      RUN_STALLED_INTERVAL_MS: 30_000,
      MAX_STALLED_COUNT: 2,
      CONNECTOR_POOL_MAX: 4,
      CONNECTOR_POOL_IDLE_MS: 30_000,
      CONNECTOR_POOLS_MAX: 64,
    });
    expect(config.EXECUTOR_DATA_DIR).toMatch(/conduit-executor$/);
    expect(config.EXECUTOR_MEMORY_LIMIT).toBeUndefined();
  });

  it('names every wrong setting', () => {
    const wrong = {
      EXECUTOR_CONCURRENCY: '0',
      RUN_MEMORY_LIMIT: 'lots',
      RUN_SCRATCH_LIMIT: '10 gigs',
      DUCKDB_MEMORY_LIMIT: '256MB',
    };
    expect(() => loadExecutorConfig(wrong)).toThrow(ConfigError);
    try {
      loadExecutorConfig(wrong);
    } catch (err) {
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toMatch(/^EXECUTOR_CONCURRENCY: /m);
      expect(problems).toMatch(/^RUN_MEMORY_LIMIT: must be a size/m);
      expect(problems).toMatch(/^RUN_SCRATCH_LIMIT: must be a size such as 2GiB/m);
      expect(problems).toMatch(/^DUCKDB_MEMORY_LIMIT: was replaced by RUN_MEMORY_LIMIT/m);
    }
    expect(() => loadExecutorConfig({ SECRETS_KEY: '00'.repeat(32), RUN_MEMORY_LIMIT: '64MiB' })).toThrow(
      /^RUN_MEMORY_LIMIT: must be at least 88MiB/m,
    );
    expect(loadExecutorConfig({ SECRETS_KEY: '00'.repeat(32), RUN_MEMORY_LIMIT: '2GiB' }).RUN_MEMORY_LIMIT).toBe(
      2 * 1024 ** 3,
    );
    expect(loadExecutorConfig({ SECRETS_KEY: '00'.repeat(32), RUN_SCRATCH_LIMIT: '500MB' }).RUN_SCRATCH_LIMIT).toBe(
      500 * 1000 ** 2,
    );
    expect(() => loadExecutorConfig({ SECRETS_KEY: '00'.repeat(32), RUN_SCRATCH_LIMIT: '0GiB' })).toThrow(
      /^RUN_SCRATCH_LIMIT: must be a size/m,
    );
  });

  it("derives a run's scratch limit from the data dir's size and the slots, and refuses scratch that cannot fit", () => {
    const key = { SECRETS_KEY: '00'.repeat(32) };
    const GiB = 1024 ** 3;
    // Half of each run's share: the other half is left to DuckDB's spill.
    expect(
      loadExecutorConfig({ ...key, EXECUTOR_CONCURRENCY: '4', EXECUTOR_DATA_DIR_SIZE: '20GiB' }).RUN_SCRATCH_LIMIT,
    ).toBe(2.5 * GiB);
    expect(loadExecutorConfig({ ...key, EXECUTOR_DATA_DIR_SIZE: String(64 * GiB) }).RUN_SCRATCH_LIMIT).toBe(4 * GiB);
    // Given explicitly, the runs' scratch together may take half of the data dir.
    expect(loadExecutorConfig({ ...key, EXECUTOR_CONCURRENCY: '2', RUN_SCRATCH_LIMIT: '8GiB' }).RUN_SCRATCH_LIMIT).toBe(
      8 * GiB,
    );
    expect(loadExecutorConfig({ ...key, EXECUTOR_CONCURRENCY: '2', RUN_SCRATCH_LIMIT: '6GiB' }).RUN_SPILL_LIMIT).toBe(
      10 * GiB,
    );
    expect(() => loadExecutorConfig({ ...key, RUN_SCRATCH_LIMIT: '8GiB' })).toThrow(
      /^RUN_SCRATCH_LIMIT: 8 runs \(EXECUTOR_CONCURRENCY\) of 8GiB hold 64GiB, more than half of EXECUTOR_DATA_DIR_SIZE \(32GiB;/m,
    );
    expect(() => loadExecutorConfig({ ...key, EXECUTOR_CONCURRENCY: '16', EXECUTOR_DATA_DIR_SIZE: '1GiB' })).toThrow(
      /^EXECUTOR_DATA_DIR_SIZE: 1GiB leaves each of 16 runs \(EXECUTOR_CONCURRENCY\) less than 64MiB of scratch/m,
    );
    expect(() => loadExecutorConfig({ ...key, EXECUTOR_DATA_DIR_SIZE: 'big' })).toThrow(
      /^EXECUTOR_DATA_DIR_SIZE: must be a size such as 32GiB/m,
    );
  });

  it("refuses slots whose runs' memory cannot fit in the container's (EXECUTOR_MEMORY_LIMIT)", () => {
    const key = { SECRETS_KEY: '00'.repeat(32) };
    // The downward API gives the container's limits.memory in bytes: 8 x 88MiB + 256MiB fit in 2GiB.
    expect(loadExecutorConfig({ ...key, EXECUTOR_MEMORY_LIMIT: String(2 * 1024 ** 3) }).EXECUTOR_MEMORY_LIMIT).toBe(
      2 * 1024 ** 3,
    );
    expect(loadExecutorConfig({ ...key, EXECUTOR_MEMORY_LIMIT: '960MiB' }).EXECUTOR_CONCURRENCY).toBe(8);
    expect(() => loadExecutorConfig({ ...key, EXECUTOR_MEMORY_LIMIT: '959MiB' })).toThrow(
      /^EXECUTOR_CONCURRENCY: 8 runs of RUN_MEMORY_LIMIT 88MiB and the executor's own 256MiB need 960MiB, more than EXECUTOR_MEMORY_LIMIT \(959MiB\): lower EXECUTOR_CONCURRENCY or RUN_MEMORY_LIMIT/m,
    );
    expect(() =>
      loadExecutorConfig({
        ...key,
        EXECUTOR_MEMORY_LIMIT: '4GiB',
        EXECUTOR_CONCURRENCY: '16',
        RUN_MEMORY_LIMIT: '256MiB',
      }),
    ).toThrow(
      /^EXECUTOR_CONCURRENCY: 16 runs of RUN_MEMORY_LIMIT 256MiB .* need 4352MiB, more than EXECUTOR_MEMORY_LIMIT \(4GiB\)/m,
    );
    expect(() => loadExecutorConfig({ ...key, EXECUTOR_MEMORY_LIMIT: 'lots' })).toThrow(
      /^EXECUTOR_MEMORY_LIMIT: must be a size such as 2GiB/m,
    );
  });

  it('takes the connector pool bounds and refuses a pool of no connections', () => {
    const key = { SECRETS_KEY: '00'.repeat(32) };
    expect(loadExecutorConfig({ ...key, CONNECTOR_POOL_MAX: '8', CONNECTOR_POOL_IDLE_MS: '5000' })).toMatchObject({
      CONNECTOR_POOL_MAX: 8,
      CONNECTOR_POOL_IDLE_MS: 5000,
    });
    expect(() => loadExecutorConfig({ ...key, CONNECTOR_POOL_MAX: '0' })).toThrow(/CONNECTOR_POOL_MAX/);
  });

  it('refuses a malformed CONNECTOR_ALLOWED_NETWORKS at start-up, naming the entry', () => {
    const key = { SECRETS_KEY: '00'.repeat(32) };
    expect(
      loadExecutorConfig({ ...key, CONNECTOR_ALLOWED_NETWORKS: '10.1.0.0/16, fd00:1::/64' }).CONNECTOR_ALLOWED_NETWORKS,
    ).toBe('10.1.0.0/16, fd00:1::/64');
    expect(() => loadExecutorConfig({ ...key, CONNECTOR_ALLOWED_NETWORKS: '10.1.0.0/16,10.2.0.0/99' })).toThrow(
      /^CONNECTOR_ALLOWED_NETWORKS: "10\.2\.0\.0\/99" is not a CIDR range/m,
    );
  });
});
