import { type RedisStreamsClient, requestStreamKey, rpcCall, RpcTimeoutError } from '../src/index.js';
import { waitFor } from './support/redis.js';
import { useRedisSuite } from './support/redis-suite.js';

describe('a service with no replica running', () => {
  const suite = useRedisSuite();
  const { prefix } = suite;
  let client: RedisStreamsClient;

  beforeAll(async () => {
    client = await suite.connectClient(300);
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
    const entries = (await suite.redis.xrange(requestStreamKey(prefix, 'later'), '-', '+')) as [string, string[]][];
    const sent = entries.map(([, fields]) => JSON.parse(fields[1]!) as { pattern: string; deadline: number });
    const call = sent.find((m) => m.pattern === 'later.items.test');
    expect(call!.deadline - started).toBeGreaterThanOrEqual(1195);
    expect(call!.deadline - started).toBeLessThan(1500);
  });

  it('fails pending calls when the client is closed', async () => {
    const closing = await suite.connectClient(10_000);
    const call = rpcCall(closing, 'nobody.items.create', {});
    const outcome = call.catch((err: unknown) => err);
    await waitFor(async () => (await suite.redis.xlen(requestStreamKey(prefix, 'nobody'))) === 1, 5000, 'the request');
    const started = Date.now();
    await closing.close();
    const error = await outcome;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('RPC client is closed');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
