import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisStreamsClient, requestStreamKey, rpcCall, RpcTimeoutError } from '../src/index.js';
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

const CLAIM_IDLE_MS = 400;

interface CreateReply {
  replica: string;
  count: number;
}

describe('recovery of requests a dead replica read but never acked', () => {
  const prefix = testPrefix();
  const stream = requestStreamKey(prefix, 'svc');
  let redis: Redis;
  const replicas = new Map<string, ReplicaProcess>();
  const clients: RedisStreamsClient[] = [];

  async function start(name: string): Promise<void> {
    replicas.set(name, await startReplica(name, prefix, CLAIM_IDLE_MS));
  }

  async function kill(name: string): Promise<void> {
    const replica = replicas.get(name);
    if (!replica) throw new Error(`no replica ${name}`);
    await killReplica(replica);
    replicas.delete(name);
  }

  async function connectClient(timeoutMs: number): Promise<RedisStreamsClient> {
    const client = new RedisStreamsClient({ url: REDIS_URL, prefix, timeoutMs });
    clients.push(client);
    await client.connect();
    return client;
  }

  /** The first attempt of `key` hangs; resolves with the replica that holds it. */
  async function holderOf(key: string): Promise<string> {
    await waitFor(async () => (await redis.get(`${prefix}holder:${key}`)) !== null, 5000, `a replica to take ${key}`);
    return (await redis.get(`${prefix}holder:${key}`)) as string;
  }

  beforeAll(async () => {
    redis = await connectRedis();
    await Promise.all([start('a'), start('b')]);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all([...replicas.values()].map((replica) => killReplica(replica, 'SIGKILL')));
    if (redis) {
      await deleteKeys(redis, prefix);
      await redis.quit();
    }
  });

  it('hands a request within its deadline to the other replica, and only after its holder died', async () => {
    const client = await connectClient(20_000);
    const call = rpcCall<CreateReply>(client, 'svc.items.create', { key: 'r1', hangFirstAttempt: true });
    const holder = await holderOf('r1');
    const other = holder === 'a' ? 'b' : 'a';

    // While the holder lives, its heartbeat keeps the entry from being claimed. Proving an absence
    // takes waiting: several claim periods.
    await sleep(CLAIM_IDLE_MS * 5);
    expect(await redis.get(`${prefix}started:r1`)).toBe('1');

    await kill(holder);
    const reply = await call;
    expect(reply).toEqual({ replica: other, key: 'r1', count: 1 });
    expect(await redis.get(`${prefix}started:r1`)).toBe('2');
    await waitFor(async () => (await pendingCount(redis, stream, 'svc')) === 0, 5000, 'no pending entries');
  });

  it('drops a request whose deadline passed instead of running it', async () => {
    await start('c');
    const client = await connectClient(1500);
    const call = rpcCall(client, 'svc.items.create', { key: 'r2', hangFirstAttempt: true });
    const holder = await holderOf('r2');

    await expect(call).rejects.toBeInstanceOf(RpcTimeoutError);
    await kill(holder);

    await waitFor(
      async () => (await pendingCount(redis, stream, 'svc')) === 0,
      5000,
      'the expired entry to be dropped',
    );
    expect(await redis.get(`${prefix}started:r2`)).toBe('1');
    expect(await redis.get(`${prefix}count:r2`)).toBeNull();
    expect(await redis.xlen(stream)).toBe(0);
  });
});
