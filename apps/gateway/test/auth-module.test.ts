import 'reflect-metadata';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { authConfigSchema } from '../src/auth/auth.config.js';
import { AuthModule } from '../src/auth/auth.module.js';
import { AuthService } from '../src/auth/auth.service.js';
import { AUTH_CONFIG } from '../src/auth/auth.tokens.js';
import { ApiKeysService } from '../src/api-keys/api-keys.service.js';
import { RateLimiter } from '../src/rate-limit/rate-limiter.js';
import { GATEWAY_CONFIG, REDIS } from '../src/tokens.js';
import { openTestDatabase, openTestRedis, type TestDatabase, type TestRedis } from './auth-fixtures.js';

let db: TestDatabase;
let r: TestRedis;

beforeAll(async () => {
  db = await openTestDatabase();
  r = await openTestRedis();
});

afterAll(async () => {
  await db?.drop();
  await r?.cleanup();
});

/** What AppModule provides globally, as AuthModule expects it. */
@Global()
@Module({})
class HostModule {
  static with(config: object, redisPrefix: string): DynamicModule {
    const providers = [
      { provide: AUTH_CONFIG, useValue: config },
      { provide: GATEWAY_CONFIG, useValue: { ...config, REDIS_PREFIX: redisPrefix } },
      { provide: DataSource, useValue: db.dataSource },
      { provide: REDIS, useValue: r.redis },
    ];
    return { module: HostModule, providers, exports: providers.map((p) => p.provide), imports: [AuthModule] };
  }
}

describe('AuthModule', () => {
  it('resolves every service through Nest DI and runs a bootstrap-key request end to end', async () => {
    const bootstrapKey = `cnd_${'Q'.repeat(43)}`;
    const config = authConfigSchema.parse({ BOOTSTRAP_API_KEY: bootstrapKey });
    const app = await NestFactory.createApplicationContext(HostModule.with(config, r.prefix), { logger: false });
    try {
      await app.get(ApiKeysService).ensureBootstrap(bootstrapKey, config.BOOTSTRAP_TENANT_ID);
      const principal = await app.get(AuthService).authenticate({ apiKey: bootstrapKey });
      expect(principal).toMatchObject({ tenant_id: config.BOOTSTRAP_TENANT_ID, scopes: ['read', 'write', 'admin'] });
      const limiter = app.get(RateLimiter);
      const result = await limiter.consume(principal.credential_id, principal.rate_limit_per_minute ?? 600);
      expect(result).toMatchObject({ allowed: true, remaining: 599 });
      expect(limiter.headersFor(result)).toMatchObject({ RateLimit: '"default";r=599;t=1' });
      // The bucket lives under the host's Redis prefix.
      expect(await r.redis.exists(`${r.prefix}gateway:ratelimit:${principal.credential_id}`)).toBe(1);
    } finally {
      await app.close();
    }
  });
});
