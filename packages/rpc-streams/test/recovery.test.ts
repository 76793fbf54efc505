import { setTimeout as sleep } from 'node:timers/promises';
import { requestStreamKey, rpcCall, RpcTimeoutError } from '../src/index.js';
import { pendingCount, waitFor } from './support/redis.js';
import { useRedisSuite } from './support/redis-suite.js';
import { killReplica, type ReplicaProcess } from './support/replicas.js';

const CLAIM_IDLE_MS = 400;

interface CreateReply {
  replica: string;
  count: number;
}

describe('recovery of requests a dead replica read but never acked', () => {
  const suite = useRedisSuite();
  const { prefix } = suite;
  const stream = requestStreamKey(prefix, 'svc');
  const replicas = new Map<string, ReplicaProcess>();

  async function start(name: string): Promise<void> {
    replicas.set(name, await suite.startReplica(name, CLAIM_IDLE_MS, 'SIGKILL'));
  }

  async function kill(name: string): Promise<void> {
    const replica = replicas.get(name);
    if (!replica) throw new Error(`no replica ${name}`);
    await killReplica(replica);
    replicas.delete(name);
  }

  /** The first attempt of `key` hangs; resolves with the replica that holds it. */
  async function holderOf(key: string): Promise<string> {
    await waitFor(
      async () => (await suite.redis.get(`${prefix}holder:${key}`)) !== null,
      5000,
      `a replica to take ${key}`,
    );
    return (await suite.redis.get(`${prefix}holder:${key}`)) as string;
  }

  beforeAll(async () => {
    await Promise.all([start('a'), start('b')]);
  });

  it('hands a request within its deadline to the other replica, and only after its holder died', async () => {
    const client = await suite.connectClient(20_000);
    const call = rpcCall<CreateReply>(client, 'svc.items.create', { key: 'r1', hangFirstAttempt: true });
    const holder = await holderOf('r1');
    const other = holder === 'a' ? 'b' : 'a';

    // While the holder lives, its heartbeat keeps the entry from being claimed. Proving an absence
    // takes waiting: several claim periods.
    await sleep(CLAIM_IDLE_MS * 5);
    expect(await suite.redis.get(`${prefix}started:r1`)).toBe('1');

    await kill(holder);
    const reply = await call;
    expect(reply).toEqual({ replica: other, key: 'r1', count: 1 });
    expect(await suite.redis.get(`${prefix}started:r1`)).toBe('2');
    await waitFor(async () => (await pendingCount(suite.redis, stream, 'svc')) === 0, 5000, 'no pending entries');
  });

  it('drops a request whose deadline passed instead of running it', async () => {
    await start('c');
    const client = await suite.connectClient(1500);
    const call = rpcCall(client, 'svc.items.create', { key: 'r2', hangFirstAttempt: true });
    const holder = await holderOf('r2');

    await expect(call).rejects.toBeInstanceOf(RpcTimeoutError);
    await kill(holder);

    await waitFor(
      async () => (await pendingCount(suite.redis, stream, 'svc')) === 0,
      5000,
      'the expired entry to be dropped',
    );
    expect(await suite.redis.get(`${prefix}started:r2`)).toBe('1');
    expect(await suite.redis.get(`${prefix}count:r2`)).toBeNull();
    expect(await suite.redis.xlen(stream)).toBe(0);
  });
});
