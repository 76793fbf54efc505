// TenantGenerations on the real Redis: a read is stable until a bump, a bump always moves it, tenants are apart, and
// a key lost (a Redis restart without persistence, an expiry) never brings an earlier value back.
import { TenantGenerations } from '../src/index.js';
import { connectRedis } from './servers.js';
import { useRedisPrefix } from './support/redis-prefix.js';

describe('TenantGenerations on the real Redis', () => {
  const { redisPrefix, closeFirst } = useRedisPrefix();

  it('reads the same generation until a bump, and another one after every bump', async () => {
    const redis = await connectRedis();
    closeFirst(async () => void redis.disconnect());
    const generations = new TenantGenerations(redis, `${redisPrefix}gen:`);
    const first = await generations.read('ten_a');
    expect(await generations.read('ten_a')).toBe(first);
    const seen = new Set([first]);
    for (let i = 0; i < 3; i += 1) {
      await generations.bump('ten_a');
      const now = await generations.read('ten_a');
      expect(seen.has(now)).toBe(false);
      seen.add(now);
    }
    // A tenant never read or bumped starts on a bump as well as on a read; the other tenant's did not move.
    await generations.bump('ten_b');
    expect(await generations.read('ten_b')).not.toBe(await generations.read('ten_a'));
    expect(await generations.read('ten_a')).toBe([...seen].at(-1));
    expect(await redis.ttl(`${redisPrefix}gen:ten_a`)).toBeGreaterThan(0);
  });

  it('never comes back to a value it had once the key is lost', async () => {
    const redis = await connectRedis();
    closeFirst(async () => void redis.disconnect());
    const generations = new TenantGenerations(redis, `${redisPrefix}lost:`);
    const key = `${redisPrefix}lost:ten_a`;
    const seen = new Set<string>();
    for (let i = 0; i < 20; i += 1) {
      seen.add(await generations.read('ten_a'));
      await generations.bump('ten_a');
      seen.add(await generations.read('ten_a'));
      await redis.del(key);
      // Lost, then bumped first (the catalog's side): still a value never seen.
      await generations.bump('ten_a');
      const afterLoss = await generations.read('ten_a');
      expect(seen.has(afterLoss)).toBe(false);
      seen.add(afterLoss);
      await redis.del(key);
    }
  });
});
