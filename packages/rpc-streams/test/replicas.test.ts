import type { Redis } from 'ioredis';
import { RedisStreamsClient, requestStreamKey, rpcCall } from '../src/index.js';
import {
  connectRedis,
  deleteKeys,
  killReplica,
  pendingCount,
  REDIS_URL,
  type ReplicaProcess,
  startReplica,
  testPrefix,
  waitFor,
} from './support.js';

interface CreateReply {
  replica: string;
  key: string;
  count: number;
}

describe('two replicas of one service (separate processes)', () => {
  const prefix = testPrefix();
  let redis: Redis;
  let client: RedisStreamsClient;
  let replicas: ReplicaProcess[] = [];

  beforeAll(async () => {
    redis = await connectRedis();
    replicas = await Promise.all([startReplica('a', prefix, 500), startReplica('b', prefix, 500)]);
    client = new RedisStreamsClient({ url: REDIS_URL, prefix, timeoutMs: 10_000 });
    await client.connect();
  });

  afterAll(async () => {
    await client?.close();
    await Promise.all(replicas.map((replica) => killReplica(replica, 'SIGTERM')));
    if (redis) {
      await deleteKeys(redis, prefix);
      await redis.quit();
    }
  });

  it('runs each of 1,000 concurrent requests on exactly one replica, sharing the load', async () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `once-${i}`);
    // A short delay per request keeps handlers in flight, so neither replica can drain the stream alone.
    const replies = await Promise.all(
      keys.map((key) => rpcCall<CreateReply>(client, 'svc.items.create', { key, delayMs: 5 })),
    );

    expect(replies.map((reply) => reply.key)).toEqual(keys);
    expect(replies.every((reply) => reply.count === 1)).toBe(true);
    const counters = await redis.mget(keys.map((key) => `${prefix}count:${key}`));
    expect(counters.every((value) => value === '1')).toBe(true);

    const served = { a: 0, b: 0 } as Record<string, number>;
    for (const reply of replies) served[reply.replica] = (served[reply.replica] ?? 0) + 1;
    expect(Object.keys(served).sort()).toEqual(['a', 'b']);
    expect(served.a).toBeGreaterThan(50);
    expect(served.b).toBeGreaterThan(50);

    const stream = requestStreamKey(prefix, 'svc');
    await waitFor(async () => (await pendingCount(redis, stream, 'svc')) === 0, 5000, 'no pending entries');
  });

  it('keeps answering every request after one replica is killed', async () => {
    const [victim, survivor] = replicas as [ReplicaProcess, ReplicaProcess];
    let sent = 0;
    const send = () => rpcCall<CreateReply>(client, 'svc.items.create', { key: `kill-${sent++}`, delayMs: 2 });

    const before = await Promise.all(Array.from({ length: 100 }, send));
    expect(new Set(before.map((reply) => reply.replica))).toEqual(new Set(['a', 'b']));

    // Killed while requests are in flight: those it read but never acked are claimed by the survivor.
    const during = Array.from({ length: 200 }, send);
    await killReplica(victim);
    const after = await Promise.all(Array.from({ length: 200 }, send));

    const duringReplies = await Promise.all(during);
    expect(duringReplies).toHaveLength(200);
    expect(after).toHaveLength(200);
    expect(after.every((reply) => reply.replica === survivor.name)).toBe(true);
  });
});
