// TenantGenerations on the real Redis: a read is stable until a change, every change moves it, none is read while a
// change is pending, tenants are apart, a key lost never brings an earlier value back, and a dropped connection
// makes every later read differ from every earlier one.
import { Redis } from 'ioredis';
import { AppError } from '@conduit/contracts';
import { TenantGenerations, type TenantGenerationsOptions } from '../src/index.js';
import { connectRedis } from './servers.js';
import { useRedisPrefix } from './support/redis-prefix.js';

describe('TenantGenerations on the real Redis', () => {
  const { redisPrefix, closeFirst } = useRedisPrefix();

  async function generationsOn(
    name: string,
    opts: TenantGenerationsOptions = {},
  ): Promise<{ redis: Redis; generations: TenantGenerations }> {
    const redis = await connectRedis();
    closeFirst(async () => void redis.disconnect());
    return { redis, generations: new TenantGenerations(redis, `${redisPrefix}${name}:`, opts) };
  }

  it('reads the same generation until a change, none while one is pending, and another after each', async () => {
    const { generations } = await generationsOn('gen');
    const first = await generations.read('ten_a');
    expect(first).not.toBeNull();
    expect(await generations.read('ten_a')).toBe(first);
    const seen = new Set([first]);
    for (let i = 0; i < 3; i += 1) {
      const during = await generations.around('ten_a', async () => {
        const inside = await generations.read('ten_a');
        // Another tenant's copies stay usable meanwhile.
        expect(await generations.read('ten_b')).not.toBeNull();
        return inside;
      });
      expect(during).toBeNull();
      const now = await generations.read('ten_a');
      expect(now).not.toBeNull();
      expect(seen.has(now)).toBe(false);
      seen.add(now);
    }
    // Two changes at once: pending until both are done.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = generations.around('ten_a', () => held);
    await generations.around('ten_a', async () => undefined);
    expect(await generations.read('ten_a')).toBeNull();
    release();
    await slow;
    expect(await generations.read('ten_a')).not.toBeNull();
  });

  it('clears its mark and moves the generation when the change fails; refuses the change when Redis is away', async () => {
    const { generations } = await generationsOn('failed');
    const before = await generations.read('ten_a');
    await expect(
      generations.around('ten_a', async () => {
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    const after = await generations.read('ten_a');
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);

    // A client whose connection has ended: every command fails at once, as while Redis is away.
    const away = new Redis({ lazyConnect: true });
    away.disconnect();
    let ran = false;
    const error = await new TenantGenerations(away, `${redisPrefix}away:`)
      .around('ten_a', async () => {
        ran = true;
      })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'service_unavailable', dependency: 'redis' });
    expect(ran).toBe(false);
  });

  it('never comes back to a value it had once the key is lost', async () => {
    const { redis, generations } = await generationsOn('lost');
    const key = `${redisPrefix}lost:g:ten_a`;
    const seen = new Set<string | null>();
    for (let i = 0; i < 20; i += 1) {
      seen.add(await generations.read('ten_a'));
      await generations.around('ten_a', async () => undefined);
      seen.add(await generations.read('ten_a'));
      await redis.del(key);
      // Lost, then moved first by a change (the owner's side): still a value never seen.
      await generations.around('ten_a', async () => undefined);
      const afterLoss = await generations.read('ten_a');
      expect(seen.has(afterLoss)).toBe(false);
      seen.add(afterLoss);
      await redis.del(key);
    }
    expect(await redis.ttl(`${redisPrefix}lost:g:ten_a`)).toBe(-2);
  });

  it('moves the generation at the mark, so a copy from before never matches even should the bump never come', async () => {
    const { redis, generations } = await generationsOn('marked');
    const before = await generations.read('ten_a');
    await generations.around('ten_a', async () => {
      // The change's mark lost (its catalog died, the mark lapsed) before any bump.
      await redis.del(`${redisPrefix}marked:p:ten_a`);
      const meanwhile = await generations.read('ten_a');
      expect(meanwhile).not.toBeNull();
      expect(meanwhile).not.toBe(before);
    });
  });

  it('renews a mark while its change runs, however long it takes', async () => {
    const { generations } = await generationsOn('renewed', { pendingTtlSeconds: 0.3 });
    const reads: (string | null)[] = [];
    await generations.around('ten_a', async () => {
      for (let i = 0; i < 6; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        reads.push(await generations.read('ten_a'));
      }
    });
    expect(reads).toEqual([null, null, null, null, null, null]);
    expect(await generations.read('ten_a')).not.toBeNull();
  });

  it("answers none for a mark's life after its connection dropped, then another generation than before", async () => {
    let now = 0;
    const { redis, generations } = await generationsOn('dropped', { now: () => now });
    const key = `${redisPrefix}dropped:g:ten_a`;
    const before = await generations.read('ten_a');
    const value = await redis.get(key);
    await redis.client('KILL', 'ID', String(await redis.client('ID')), 'SKIPME', 'no');
    // The same value in Redis (as after a crash that lost the bumps since it): never the generation read before.
    await redis.set(key, value!);
    expect(await generations.read('ten_a')).toBeNull();
    now += 60_000;
    const after = await generations.read('ten_a');
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
  });
});
