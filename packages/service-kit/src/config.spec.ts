import { z } from 'zod';
import { ConfigError, baseEnv, envPort, loadConfig } from './config.js';

const serviceSchema = z.object({
  ...baseEnv,
  SERVICE_PORT: envPort().default(3001),
  SECRETS_KEY: z.string().min(32),
});

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the defaults of baseEnv and the service', () => {
    const config = loadConfig(serviceSchema, { SECRETS_KEY: 'k'.repeat(32) });
    expect(config).toEqual({
      NODE_ENV: 'development',
      CONDUIT_ENV: 'production',
      LOG_LEVEL: 'info',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: 'conduit:',
      SERVICE_PORT: 3001,
      SECRETS_KEY: 'k'.repeat(32),
    });
  });

  it('reads and coerces given values, ignoring unknown variables', () => {
    const config = loadConfig(serviceSchema, {
      SECRETS_KEY: 'k'.repeat(32),
      SERVICE_PORT: '8080',
      LOG_LEVEL: 'debug',
      NODE_ENV: 'production',
      DATABASE_URL: 'postgresql://app:pw@db:5432/conduit',
      REDIS_URL: 'rediss://cache:6380/2',
      PATH: '/usr/bin',
    });
    expect(config.SERVICE_PORT).toBe(8080);
    expect(config.LOG_LEVEL).toBe('debug');
    expect(config.DATABASE_URL).toBe('postgresql://app:pw@db:5432/conduit');
    expect(config.REDIS_URL).toBe('rediss://cache:6380/2');
    expect(config).not.toHaveProperty('PATH');
  });

  it('treats empty variables as unset', () => {
    const config = loadConfig(serviceSchema, { SECRETS_KEY: 'k'.repeat(32), LOG_LEVEL: '', SERVICE_PORT: '' });
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.SERVICE_PORT).toBe(3001);
  });

  it('leaves SERVICE_PORT undefined when neither set nor defaulted', () => {
    expect(loadConfig(z.object(baseEnv), {}).SERVICE_PORT).toBeUndefined();
  });

  it('lists every missing and invalid value, one per line', () => {
    const error = configError(() =>
      loadConfig(serviceSchema, {
        SERVICE_PORT: 'eighty',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'mysql://root@db/x',
        REDIS_URL: 'not a url',
      }),
    );
    expect(error.problems).toEqual([
      'LOG_LEVEL: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
      'DATABASE_URL: must be a postgres:// URL',
      'REDIS_URL: must be a redis:// or rediss:// URL',
      'SERVICE_PORT: must be an integer port number (0-65535)',
      'SECRETS_KEY: required',
    ]);
    expect(error.message.split('\n')).toEqual(error.problems);
  });

  it('rejects ports out of range or fractional', () => {
    for (const port of ['70000', '-1', '80.5']) {
      const error = configError(() => loadConfig(serviceSchema, { SECRETS_KEY: 'k'.repeat(32), SERVICE_PORT: port }));
      expect(error.problems).toEqual(['SERVICE_PORT: must be an integer port number (0-65535)']);
    }
  });

  it('never echoes a value, which may be a secret', () => {
    const error = configError(() =>
      loadConfig(serviceSchema, { SECRETS_KEY: 'too-short-secret', DATABASE_URL: 'mysql://root:hunter2@db/x' }),
    );
    expect(error.message).not.toContain('too-short-secret');
    expect(error.message).not.toContain('hunter2');
    expect(error.problems).toHaveLength(2);
  });
});
