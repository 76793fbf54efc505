import { type RedisStreamsClient, requestStreamKey, rpcCall } from '../src/index.js';
import { pendingCount, waitFor } from './support/redis.js';
import { useRedisSuite } from './support/redis-suite.js';
import { killReplica, type ReplicaProcess } from './support/replicas.js';

interface CreateReply {
  replica: string;
  key: string;
  count: number;
}

describe('two replicas of one service (separate processes)', () => {
  const suite = useRedisSuite();
  const { prefix } = suite;
  let client: RedisStreamsClient;
  let replicas: ReplicaProcess[] = [];

  beforeAll(async () => {
    replicas = await Promise.all([suite.startReplica('a', 500, 'SIGTERM'), suite.startReplica('b', 500, 'SIGTERM')]);
    client = await suite.connectClient(10_000);
  });

  it('runs each of 1,000 concurrent requests on exactly one replica, sharing the load', async () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `once-${i}`);
    // A short delay per request keeps handlers in flight, so neither replica can drain the stream alone.
    const replies = await Promise.all(
      keys.map((key) => rpcCall<CreateReply>(client, 'svc.items.create', { key, delayMs: 5 })),
    );

    expect(replies.map((reply) => reply.key)).toEqual(keys);
    expect(replies.every((reply) => reply.count === 1)).toBe(true);
    const counters = await suite.redis.mget(keys.map((key) => `${prefix}count:${key}`));
    expect(counters.every((value) => value === '1')).toBe(true);

    const served = { a: 0, b: 0 } as Record<string, number>;
    for (const reply of replies) served[reply.replica] = (served[reply.replica] ?? 0) + 1;
    expect(Object.keys(served).sort()).toEqual(['a', 'b']);
    expect(served.a).toBeGreaterThan(50);
    expect(served.b).toBeGreaterThan(50);

    const stream = requestStreamKey(prefix, 'svc');
    await waitFor(async () => (await pendingCount(suite.redis, stream, 'svc')) === 0, 5000, 'no pending entries');
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
