// One suite's world on the real transport: a Redis connection and a key prefix of its own, the services and
// clients its tests start on that prefix, all closed and the keys removed after the suite.
import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Redis } from 'ioredis';
import { RedisStreamsClient, RedisStreamsServer } from '../../src/index.js';
import { connectRedis, deleteKeys, REDIS_URL, testPrefix } from './redis.js';
import { killReplica, type ReplicaProcess, startReplica } from './replicas.js';

interface Closable {
  close(): Promise<unknown>;
}

export class RedisSuite {
  readonly prefix = testPrefix();
  /** Set once the suite started. */
  redis!: Redis;
  private readonly started: Closable[] = [];

  async start(): Promise<void> {
    this.redis = await connectRedis();
  }

  /** Keeps something a test started, to close before the suite's keys go (the last kept is closed first). */
  keep<T extends Closable>(closable: T): T {
    this.started.push(closable);
    return closable;
  }

  /** A Nest microservice answering `service`'s patterns on the suite's prefix. */
  async startService(module: object, service: string): Promise<INestMicroservice> {
    const app = await NestFactory.createMicroservice(module, {
      strategy: new RedisStreamsServer({ url: REDIS_URL, prefix: this.prefix, service, blockMs: 1000 }),
      logger: false,
    });
    await app.listen();
    return this.keep(app);
  }

  /** A connected client on the suite's prefix. */
  async connectClient(timeoutMs: number): Promise<RedisStreamsClient> {
    const client = this.keep(new RedisStreamsClient({ url: REDIS_URL, prefix: this.prefix, timeoutMs }));
    await client.connect();
    return client;
  }

  /** A replica process of the test service on the suite's prefix, ended with `stopWith` after the suite. */
  async startReplica(name: string, claimIdleMs: number, stopWith: NodeJS.Signals): Promise<ReplicaProcess> {
    const replica = await startReplica(name, this.prefix, claimIdleMs);
    this.keep({ close: () => killReplica(replica, stopWith) });
    return replica;
  }

  async stop(): Promise<void> {
    for (const closable of this.started.reverse()) await closable.close();
    if (this.redis) {
      await deleteKeys(this.redis, this.prefix);
      await this.redis.quit();
    }
  }
}

/** Registers the suite's beforeAll and afterAll, and answers its handles. */
export function useRedisSuite(): RedisSuite {
  const suite = new RedisSuite();
  beforeAll(() => suite.start());
  afterAll(() => suite.stop());
  return suite;
}
