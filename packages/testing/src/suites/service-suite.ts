import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { bullPrefix } from '@conduit/service-kit';
import type { TestSchemas } from '../postgres/schemas.js';
import { deleteKeys, REDIS_URL, redisTestPrefix, requireRedis } from '../redis/redis-keys.js';

/** Anything a suite starts and stops: an app, a caller, a stub server, a receiver. */
export interface Closable {
  close(): Promise<void>;
}

/** What a service's integration suite sets up before its tests. */
export interface ServiceSuiteOptions<App extends Closable> {
  /** The service, naming the Redis prefix and the loud failure when a server is missing. */
  who: string;
  /** The Redis prefix's middle part. Default `who`. */
  prefixName?: string;
  schemas: TestSchemas;
  /** The queues the tests read or feed, opened on the suite's prefix. Default none. */
  queues?: readonly string[];
  /** Starts the app under test on the suite's schema and prefix; absent when the tests start their own. */
  startApp?: (ds: DataSource, prefix: string) => Promise<App>;
}

/**
 * One integration suite's world: a Redis prefix and a migrated PostgreSQL schema of its own, the app under test on
 * them, and queues on the prefix. Handles are set once `start` ran; `stop` closes what started (after a failed
 * start too) and removes the schema and the keys. Apps extend it with their stubs and callers.
 */
export class ServiceSuite<App extends Closable> {
  readonly prefix: string;
  readonly schema: string;
  redis!: Redis;
  ds!: DataSource;
  /** Unset when the options have no `startApp`. */
  app!: App;
  private readonly queues = new Map<string, Queue>();
  /** Closed first: what talks to the app (callers, publishers). */
  private readonly clients: Closable[] = [];
  /** Closed after the app: what the app talks to (stubs, receivers). */
  private readonly fixtures: Closable[] = [];

  constructor(private readonly options: ServiceSuiteOptions<App>) {
    this.prefix = redisTestPrefix(options.prefixName ?? options.who);
    this.schema = options.schemas.newSchemaName();
    // Opened now so that tests may name them at module level; a missing Redis still fails first in start().
    for (const name of options.queues ?? []) {
      this.queues.set(name, new Queue(name, { connection: { url: REDIS_URL }, prefix: bullPrefix(this.prefix) }));
    }
  }

  /** A queue named in the options. */
  queue(name: string): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new Error(`the suite did not open the queue ${name}: name it in its options`);
    return queue;
  }

  /** Keeps a client of the app (made before the suite starts, connecting on first use) to close before the app. */
  client<T extends Closable>(client: T): T {
    this.clients.push(client);
    return client;
  }

  /** Keeps something the app needs, to close after the app. */
  fixture<T extends Closable>(fixture: T): T {
    this.fixtures.push(fixture);
    return fixture;
  }

  async start(): Promise<void> {
    this.redis = await requireRedis(this.options.who);
    this.ds = await this.options.schemas.openSchema(this.schema);
    await this.startFixtures();
    if (this.options.startApp) this.app = await this.options.startApp(this.ds, this.prefix);
  }

  /** What the app needs running before it starts; register each with `fixture`. */
  protected async startFixtures(): Promise<void> {}

  async stop(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    for (const client of this.clients.reverse()) await client.close();
    await this.app?.close();
    for (const fixture of this.fixtures.reverse()) await fixture.close();
    if (this.ds) await this.options.schemas.dropSchema(this.ds, this.schema);
    if (this.redis) {
      await deleteKeys(this.redis, this.prefix);
      this.redis.disconnect();
    }
  }
}
