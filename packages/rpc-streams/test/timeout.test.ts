import type { Redis } from 'ioredis';
import { RedisStreamsClient, requestStreamKey, rpcCall, RpcTimeoutError } from '../src/index.js';
import { connectRedis, deleteKeys, REDIS_URL, testPrefix, waitFor } from './support.js';

describe('a service with no replica running', () => {
  const prefix = testPrefix();
  let redis: Redis;
  let client: RedisStreamsClient;

  beforeAll(async () => {
    redis = await connectRedis();
    client = new RedisStreamsClient({ url: REDIS_URL, prefix, timeoutMs: 300 });
    await client.connect();
  });

  afterAll(async () => {
    await client?.close();
    if (redis) {
      await deleteKeys(redis, prefix);
      await redis.quit();
    }
  });

  it('fails the call with RpcTimeoutError after about timeoutMs', async () => {
    const started = Date.now();
    const error: unknown = await rpcCall(client, 'nobody.items.create', { key: 'x' }).catch((err: unknown) => err);
    const elapsed = Date.now() - started;

    expect(error).toBeInstanceOf(RpcTimeoutError);
    expect((error as RpcTimeoutError).name).toBe('RpcTimeoutError');
    expect((error as RpcTimeoutError).message).toContain('nobody.items.create');
    expect(elapsed).toBeGreaterThanOrEqual(295);
    expect(elapsed).toBeLessThan(1500);
  });

  it("waits as long as a call asks instead of the client's timeout, and gives the server that deadline", async () => {
    const started = Date.now();
    const error: unknown = await rpcCall(client, 'later.items.test', {}, { timeoutMs: 1200 }).catch(
      (err: unknown) => err,
    );
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(RpcTimeoutError);
    expect(elapsed).toBeGreaterThanOrEqual(1195);
    expect(elapsed).toBeLessThan(2500);
    const entries = (await redis.xrange(requestStreamKey(prefix, 'later'), '-', '+')) as [string, string[]][];
    const sent = entries.map(([, fields]) => JSON.parse(fields[1]!) as { pattern: string; deadline: number });
    const call = sent.find((m) => m.pattern === 'later.items.test');
    expect(call!.deadline - started).toBeGreaterThanOrEqual(1195);
    expect(call!.deadline - started).toBeLessThan(1500);
  });

  it('fails pending calls when the client is closed', async () => {
    const closing = new RedisStreamsClient({ url: REDIS_URL, prefix, timeoutMs: 10_000 });
    await closing.connect();
    const call = rpcCall(closing, 'nobody.items.create', {});
    const outcome = call.catch((err: unknown) => err);
    await waitFor(async () => (await redis.xlen(requestStreamKey(prefix, 'nobody'))) === 1, 5000, 'the request');
    const started = Date.now();
    await closing.close();
    const error = await outcome;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('RPC client is closed');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
