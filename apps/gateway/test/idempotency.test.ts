// Redis failing once the service has committed must not turn a create into a 500: the answer (maybe a secret shown
// only once) is returned, and the key is not released as if nothing had happened.
import { Writable } from 'node:stream';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { firstValueFrom, from } from 'rxjs';
import { createLogger } from '@conduit/service-kit';
import { IdempotencyInterceptor } from '../src/idempotency/idempotency.interceptor.js';
import type { GatewayConfig } from '../src/config.js';
import { openTestRedis, type TestRedis } from './auth-fixtures.js';

let t: TestRedis;

beforeAll(async () => {
  t = await openTestRedis();
});

afterAll(async () => {
  await t?.cleanup();
});

describe('IdempotencyInterceptor', () => {
  it('returns a committed answer when storing it in Redis fails, and logs that without the answer', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const config = {
      REDIS_PREFIX: t.prefix,
      SECRETS_KEY: Buffer.alloc(32, 3),
      SECRETS_KEYS_PREVIOUS: [],
      IDEMPOTENCY_TTL_S: 3600,
      IDEMPOTENCY_HOLD_AFTER_503_MS: 1000,
    } as unknown as GatewayConfig;
    // Its own connection (closed by the test itself), so that it can fail between the claim and the stored answer.
    const redis = t.redis.duplicate();
    await redis.connect();
    const interceptor = new IdempotencyInterceptor(
      redis,
      config,
      createLogger({ service: 'gateway', level: 'debug', destination: sink }),
    );
    const request = {
      method: 'POST',
      url: '/v1/api-keys',
      routeOptions: { url: '/v1/api-keys' },
      headers: { 'idempotency-key': 'create-key-1' },
      body: { name: 'ci' },
      principal: { credential_id: 'key_caller', tenant_id: 'ten_idem' },
    };
    const reply = { getHeader: () => undefined, headers: () => reply };
    const context = {
      switchToHttp: () => ({ getRequest: () => request, getResponse: () => reply }),
    } as unknown as ExecutionContext;
    const created = { id: 'key_new', secret: 'ck_live_shown_once_0123456789' };
    const next: CallHandler = {
      // The service commits, then Redis goes away before the answer is stored.
      handle: () =>
        from(
          (async () => {
            redis.disconnect();
            return created;
          })(),
        ),
    };

    const answer = await firstValueFrom(interceptor.intercept(context, next));

    expect(answer).toEqual(created);
    const logged = lines.join('');
    expect(logged).toContain('could not store the idempotent answer');
    expect(logged).not.toContain(created.secret);
    // Not released: the in-flight mark stays until its TTL, and a retry then meets the service's own stored key.
    const keys = await t.redis.keys(`${t.prefix}idem:ten_idem:*`);
    expect(keys).toHaveLength(1);
    expect(JSON.parse((await t.redis.get(keys[0]!))!)).toMatchObject({ state: 'in_flight' });
  });
});
