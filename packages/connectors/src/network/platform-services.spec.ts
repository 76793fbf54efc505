import { knowPlatformServices, platformServices } from './platform-services.js';

describe('knowPlatformServices', () => {
  const saved = { db: process.env['DATABASE_URL'], redis: process.env['REDIS_URL'] };
  afterEach(() => {
    for (const [name, value] of [
      ['DATABASE_URL', saved.db],
      ['REDIS_URL', saved.redis],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("names the config's defaults where the environment names nothing, and keeps what it names", () => {
    delete process.env['DATABASE_URL'];
    process.env['REDIS_URL'] = 'redis://10.1.2.3:6390';
    knowPlatformServices({
      DATABASE_URL: 'postgres://app@127.0.0.1:5432/conduit',
      REDIS_URL: 'redis://127.0.0.1:6379',
    });
    expect(platformServices()).toEqual([
      { what: 'database', host: '127.0.0.1', port: 5432 },
      { what: 'redis', host: '10.1.2.3', port: 6390 },
    ]);
  });
});
