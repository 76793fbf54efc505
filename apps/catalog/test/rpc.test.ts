import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisStreamsClient, RedisStreamsServer, rpcCall } from '@conduit/rpc-streams';
import { createLogger } from '@conduit/service-kit';
import { rpcPatterns, type Connector, type Project, type RpcReply } from '@conduit/contracts';
import { SECRET_MASK } from '@conduit/connectors';
import { AppModule } from '../src/app.module.js';
import {
  freshCatalog,
  inTransit,
  localPostgresConfig,
  newTenant,
  rpcCtx,
  type CatalogUnderTest,
} from './support/catalog-db.js';
import { deleteKeys, REDIS_URL, requireRedis, testPrefix } from './support/redis.js';

let cat: CatalogUnderTest;
let redis: Redis;
let app: INestMicroservice;
let client: RedisStreamsClient;
const prefix = testPrefix();

beforeAll(async () => {
  redis = await requireRedis();
  cat = await freshCatalog();
  app = await NestFactory.createMicroservice(
    AppModule.forRoot({
      database: cat.ds,
      logger: createLogger({ service: 'catalog', level: 'silent' }),
      secretsKey: cat.key,
    }),
    { strategy: new RedisStreamsServer({ url: REDIS_URL, prefix, service: 'catalog', blockMs: 500 }), logger: false },
  );
  await app.listen();
  client = new RedisStreamsClient({ url: REDIS_URL, prefix, timeoutMs: 10_000 });
  await client.connect();
});

afterAll(async () => {
  await client?.close();
  await app?.close();
  await cat?.drop();
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
});

describe('catalog over the Redis Streams RPC', () => {
  it('creates and reads a project through the real transport, with its ETag', async () => {
    const t = newTenant();
    const created = await rpcCall<RpcReply<Project>>(client, 'catalog.projects.create', {
      ctx: rpcCtx(t),
      data: { body: { name: 'over rpc', template: 'postgres-to-postgres-etl' } },
    });
    if (!created.ok) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
    expect(created.data).toMatchObject({ name: 'over rpc', template: 'postgres-to-postgres-etl' });
    expect(created.etag).toMatch(/^".+"$/);

    const got = await rpcCall<RpcReply<Project>>(client, 'catalog.projects.get', {
      ctx: rpcCtx(t),
      data: { id: created.data.id },
    });
    expect(got).toEqual({ ok: true, data: created.data, etag: created.etag });

    const foreign = await rpcCall<RpcReply<Project>>(client, 'catalog.projects.get', {
      ctx: rpcCtx(newTenant()),
      data: { id: created.data.id },
    });
    expect(foreign).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('answers domain errors as data: a request that breaks the schema, a taken name', async () => {
    const t = newTenant();
    const bad = await rpcCall<RpcReply<unknown>>(client, 'catalog.projects.create', {
      ctx: rpcCtx(t),
      data: { body: { name: '', colour: 'red' } },
    });
    expect(bad).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    await rpcCall(client, 'catalog.projects.create', { ctx: rpcCtx(t), data: { body: { name: 'twice' } } });
    const again = await rpcCall<RpcReply<unknown>>(client, 'catalog.projects.create', {
      ctx: rpcCtx(t),
      data: { body: { name: 'twice' } },
    });
    expect(again).toMatchObject({ ok: false, error: { code: 'name_taken' } });
  });

  it('never answers a secret: connector create and test over RPC', async () => {
    const t = newTenant();
    const created = await rpcCall<RpcReply<Connector>>(client, 'catalog.connectors.create', {
      ctx: rpcCtx(t),
      data: {
        body: {
          name: 'local',
          type: 'postgres',
          config: inTransit(cat.key, t, localPostgresConfig('top-secret-value')),
        },
      },
    });
    if (!created.ok) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
    expect(created.data.config['password']).toBe(SECRET_MASK);
    expect(JSON.stringify(created)).not.toContain('top-secret-value');
    const tested = await rpcCall<RpcReply<{ ok: boolean }>>(client, 'catalog.connectors.test', {
      ctx: rpcCtx(t),
      data: { id: created.data.id },
    });
    expect(tested).toMatchObject({ ok: true, data: { ok: true } });
  });

  it('has a handler for every catalog pattern of the contract', async () => {
    const catalogPatterns = rpcPatterns.filter((p) => p.startsWith('catalog.'));
    expect(catalogPatterns.length).toBeGreaterThan(0);
    for (const pattern of catalogPatterns) {
      // An empty data object: each handler answers a reply envelope (validation_failed at worst), never a transport error.
      const reply = await rpcCall<RpcReply<unknown>>(client, pattern, { ctx: rpcCtx(newTenant()), data: {} });
      expect(typeof reply.ok).toBe('boolean');
      if (!reply.ok) expect(reply.error.code).toBe('validation_failed');
    }
    const templates = await rpcCall<RpcReply<{ data: { name: string }[] }>>(client, 'catalog.templates.list', {
      ctx: rpcCtx(newTenant()),
      data: {},
    });
    expect(templates.ok && templates.data.data.map((x) => x.name)).toEqual([
      'blank',
      'postgres-to-postgres-etl',
      'support-ticket-routing',
    ]);
  });
});
