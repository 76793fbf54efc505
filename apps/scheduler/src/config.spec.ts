import { loadSchedulerConfig } from './config.js';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/conduit', REDIS_URL: 'redis://127.0.0.1:6379' };

describe('scheduler config: test-only fault points', () => {
  it('arms them outside production', () => {
    const config = loadSchedulerConfig({
      ...base,
      SCHEDULER_FAULT_POINT: 'after_run_commit',
      SCHEDULER_FAULT_COMMIT_DELAY_MS: '500',
    });
    expect([config.SCHEDULER_FAULT_POINT, config.SCHEDULER_FAULT_COMMIT_DELAY_MS]).toEqual(['after_run_commit', 500]);
  });

  it('refuses to start in production with either set, naming it', () => {
    expect(() =>
      loadSchedulerConfig({ ...base, NODE_ENV: 'production', SCHEDULER_FAULT_POINT: 'after_run_commit' }),
    ).toThrow(/SCHEDULER_FAULT_POINT/);
    expect(() =>
      loadSchedulerConfig({ ...base, NODE_ENV: 'production', SCHEDULER_FAULT_COMMIT_DELAY_MS: '1' }),
    ).toThrow(/SCHEDULER_FAULT_COMMIT_DELAY_MS/);
    expect(loadSchedulerConfig({ ...base, NODE_ENV: 'production' }).SCHEDULER_FAULT_POINT).toBeUndefined();
  });
});
