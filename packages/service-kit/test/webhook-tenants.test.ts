// WebhookTenants on the real Redis: a publisher leaves out only tenants the dispatcher's complete set lacks, and
// answers null (send every event) whenever it cannot tell: no complete set, a connection just opened or dropped, an
// answer that does not come. The dispatcher's admit refuses with a 503 when Redis does not take it.
import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { AppError, statusOf } from '@conduit/contracts';
import { WEBHOOK_TENANTS_KEY, WebhookTenants } from '../src/index.js';
import { setTimeout as delay } from 'node:timers/promises';
import { connectRedis } from './servers.js';
import { useRedisPrefix } from './support/redis-prefix.js';

describe('WebhookTenants on the real Redis', () => {
  const { redisPrefix, closeFirst } = useRedisPrefix();

  async function connected(): Promise<Redis> {
    const redis = await connectRedis();
    closeFirst(async () => void redis.disconnect());
    return redis;
  }

  it('answers null until the set is complete, then the members among the tenants asked', async () => {
    const redis = await connected();
    const prefix = `${redisPrefix}members:`;
    const tenants = new WebhookTenants(redis, prefix, { distrustMs: 0 });
    expect(await tenants.subscribedAmong(['tnt_a'])).toBeNull();
    // A create's admit before any complete write (Redis lost the set): still not complete.
    await tenants.admit('tnt_a');
    expect(await tenants.subscribedAmong(['tnt_a', 'tnt_b'])).toBeNull();

    const many = Array.from({ length: 2_500 }, (_, i) => `tnt_m${i}`);
    await tenants.complete(async () => ['tnt_c', ...many]);
    expect(await tenants.subscribedAmong(['tnt_a', 'tnt_b', 'tnt_c', 'tnt_a', 'tnt_m2499'])).toEqual(
      new Set(['tnt_a', 'tnt_c', 'tnt_m2499']),
    );
    expect(await tenants.subscribedAmong(['tnt_b'])).toEqual(new Set());
    // A later webhook's tenant is a member from its admit on; nothing ever leaves.
    await tenants.admit('tnt_b');
    await tenants.complete(async () => []);
    expect(await tenants.subscribedAmong(['tnt_a', 'tnt_b'])).toEqual(new Set(['tnt_a', 'tnt_b']));
    // The key is the deployment's: another prefix sees nothing.
    expect(await new WebhookTenants(redis, `${redisPrefix}other:`, { distrustMs: 0 }).subscribedAmong(['tnt_a'])).toBe(
      null,
    );
    expect(await redis.exists(`${prefix}${WEBHOOK_TENANTS_KEY}`)).toBe(1);

    // Redis loses the set (a restart without persistence): null again until the dispatcher writes it whole.
    await redis.del(`${prefix}${WEBHOOK_TENANTS_KEY}`);
    await tenants.admit('tnt_a');
    expect(await tenants.subscribedAmong(['tnt_a'])).toBeNull();
  });

  it('marks no write whose set was lost after its read began, and lapses unless written again', async () => {
    const redis = await connected();
    const prefix = `${redisPrefix}fence:`;
    const key = `${prefix}${WEBHOOK_TENANTS_KEY}`;
    const tenants = new WebhookTenants(redis, prefix, { distrustMs: 0, ttlMs: 60_000 });
    // The table read, then Redis restarts (the set and the write's token gone) before the write lands: a create
    // committed meanwhile added its tenant to the server that was lost, so this read must not be marked complete.
    const marked = await tenants.complete(async () => {
      await redis.del(key);
      return ['tnt_a'];
    });
    expect(marked).toBe(false);
    expect(await tenants.subscribedAmong(['tnt_a', 'tnt_b'])).toBeNull();
    expect(await tenants.complete(async () => ['tnt_a'])).toBe(true);
    expect(await tenants.subscribedAmong(['tnt_a', 'tnt_b'])).toEqual(new Set(['tnt_a']));
    // Only the tenants and the mark stay: no write's token is left behind, and the set lives for ttlMs.
    expect((await redis.smembers(key)).sort()).toEqual(['* complete', 'tnt_a']);
    expect(await redis.pttl(key)).toBeGreaterThan(50_000);
    // A write that fails leaves no token either.
    await expect(tenants.complete(() => Promise.reject(new Error('database away')))).rejects.toThrow('database away');
    expect((await redis.smembers(key)).sort()).toEqual(['* complete', 'tnt_a']);

    // No dispatcher writes it any more (rolled back): once it lapses, publishers send everything.
    const lapsing = new WebhookTenants(redis, `${redisPrefix}lapse:`, { distrustMs: 0, ttlMs: 300 });
    expect(await lapsing.complete(async () => ['tnt_a'])).toBe(true);
    expect(await lapsing.subscribedAmong(['tnt_a'])).toEqual(new Set(['tnt_a']));
    const giveUpAt = performance.now() + 10_000;
    while ((await lapsing.subscribedAmong(['tnt_a'])) !== null && performance.now() < giveUpAt) await delay(20);
    expect(await lapsing.subscribedAmong(['tnt_a'])).toBeNull();
  });

  it('distrusts the set after its connection opened and after every drop', async () => {
    let clock = 1_000;
    const redis = await connected();
    const prefix = `${redisPrefix}drops:`;
    const tenants = new WebhookTenants(redis, prefix, { distrustMs: 500, now: () => clock });
    await tenants.complete(async () => ['tnt_a']);
    expect(await tenants.subscribedAmong(['tnt_a', 'tnt_b'])).toBeNull();
    clock += 500;
    expect(await tenants.subscribedAmong(['tnt_a', 'tnt_b'])).toEqual(new Set(['tnt_a']));

    const ready = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    redis.disconnect(true);
    await ready;
    expect(await tenants.subscribedAmong(['tnt_a', 'tnt_b'])).toBeNull();
    clock += 499;
    expect(await tenants.subscribedAmong(['tnt_a', 'tnt_b'])).toBeNull();
    clock += 1;
    expect(await tenants.subscribedAmong(['tnt_a', 'tnt_b'])).toEqual(new Set(['tnt_a']));
  });

  it('answers null when Redis is slow or away, and refuses an admit with a 503', async () => {
    // A server that takes connections and never answers.
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const slow = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, enableReadyCheck: false });
    try {
      const started = performance.now();
      expect(
        await new WebhookTenants(slow, redisPrefix, { distrustMs: 0, timeoutMs: 100 }).subscribedAmong(['t']),
      ).toBe(null);
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      slow.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }

    // Nothing listens on that port any more.
    const away = new Redis({ port, host: '127.0.0.1', enableOfflineQueue: false, retryStrategy: () => null });
    away.on('error', () => undefined);
    try {
      const tenants = new WebhookTenants(away, redisPrefix, { distrustMs: 0 });
      expect(await tenants.subscribedAmong(['t'])).toBeNull();
      const refused = await tenants.admit('t').then(
        () => null,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(AppError);
      expect(statusOf((refused as AppError).code)).toBe(503);
      expect((refused as AppError).dependency).toBe('redis');
    } finally {
      away.disconnect();
    }
  });
});
