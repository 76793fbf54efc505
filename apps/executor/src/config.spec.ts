import { ConfigError } from '@conduit/service-kit';
import { loadExecutorConfig } from './config.js';

describe('executor config', () => {
  it('has defaults that fit a local machine', () => {
    const config = loadExecutorConfig({ SECRETS_KEY: '00'.repeat(32) });
    expect(config).toMatchObject({
      EXECUTOR_CONCURRENCY: 2,
      EXECUTOR_PORT: 3103,
      RUN_MEMORY_LIMIT: 88 * 1024 * 1024,
      // Two runs at their scratch limit stay under the 20Gi spill volume of k8s/base/executor.yaml.
      RUN_SCRATCH_LIMIT: 8 * 1024 ** 3,
      RUN_LOCK_MS: 30_000,
      RUN_STALLED_INTERVAL_MS: 30_000,
      MAX_STALLED_COUNT: 2,
      CONNECTOR_POOL_MAX: 4,
      CONNECTOR_POOL_IDLE_MS: 30_000,
      CONNECTOR_POOLS_MAX: 64,
    });
    expect(config.EXECUTOR_DATA_DIR).toMatch(/conduit-executor$/);
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
      expect(problems).toMatch(/^RUN_SCRATCH_LIMIT: must be a size such as 8GiB/m);
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
