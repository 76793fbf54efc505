/**
 * Issue 14, findings 2 (last bullet), 4, 5 and 9, with every service its own process. A Redis MONITOR connection
 * sees every command any service sends while a connector with a password is created, updated, tested and used in a
 * run, and a webhook with a secret is created and delivered: no secret's plaintext is in any command, nor in any
 * service's log. Then: a connector that moves must be sent its secrets again; URLs carry no credentials; an
 * idempotent replay of a new API key is neither shared with another credential nor stored in clear.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startStack, waitFor, type Stack } from '@conduit/testing';
import { call, expectProblem } from './support/client.js';
import {
  create,
  createPipelineAndJob,
  extractLoadDag,
  localPostgresConfig,
  nodeOf,
  triggerRun,
  uniqueName,
  waitForRunEnd,
} from './support/helpers.js';
import { Receiver } from '@conduit/testing';
import { monitorRedis, type RedisMonitor } from './support/redis-monitor.js';
import type {
  ConnectionTestResult,
  Connector,
  CreatedApiKey,
  Delivery,
  Page,
  ProblemDocument,
} from '@conduit/contracts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let stack: Stack;
let receiver: Receiver;
let monitor: RedisMonitor;
/** Every command Redis received while the suite ran, as text. */
/** A database of this suite's own for the run's tables (not the platform's, which connectors may not reach). */
const dataDb = `conduit_sec_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

const secret = (what: string) => `Zq-${what}-${randomUUID()}`;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dataDb}`);
  await admin.end();
  const redisUrl = new URL(REDIS_URL);
  monitor = await monitorRedis({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
  stack = await startStack({
    CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'debug',
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.stop();
  monitor?.stop();
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dataDb} WITH (FORCE)`);
  await admin.end();
});

/** The commands of this stack only: every key it uses starts with its prefix. */
const stackCommands = () => monitor.commands.filter((c) => c.includes(stack.redisPrefix));

function expectNowhere(secrets: string[]): void {
  const inRedis = stackCommands().filter((c) => secrets.some((s) => c.includes(s)));
  expect(inRedis).toEqual([]);
  const inLogs = stack
    .logs()
    .split('\n')
    .filter((line) => secrets.some((s) => line.includes(s)));
  expect(inLogs).toEqual([]);
}

describe('finding 2: secrets cross processes only sealed', () => {
  it('a connector password (create, update, test, run) and a webhook secret (create, delivery) appear in no Redis command and no log', async () => {
    const first = secret('pg-first');
    const second = secret('pg-second');
    const hookSecret = secret('webhook');
    const pgConfig = localPostgresConfig({ database: dataDb });
    const data = new pg.Client({ connectionString: ADMIN_URL.replace(/\/[^/]*$/, `/${dataDb}`) });
    await data.connect();
    await data.query(
      'create table src (id int primary key, label text); create table dst (id int primary key, label text)',
    );
    await data.query(`insert into src select g, 'row ' || g from generate_series(1, 20) g`);

    const endpoint = receiver.endpoint();
    const hook = await create<{ id: string }>(stack, '/v2/webhooks', {
      url: endpoint.url,
      events: ['job.completed'],
      secret: hookSecret,
    });
    const connector = await create<{ id: string; config: Record<string, unknown> }>(stack, '/v2/connectors', {
      name: uniqueName('pg'),
      type: 'postgres',
      config: { ...pgConfig, password: first },
    });
    const updated = await call<Connector>(stack, 'PUT', `/v2/connectors/${connector.id}`, {
      body: { name: uniqueName('pg'), config: { ...pgConfig, password: second } },
    });
    expect(updated.status).toBe(200);
    const tested = await call<ConnectionTestResult>(stack, 'POST', `/v2/connectors/${connector.id}/test`);
    expect(tested.body).toMatchObject({ ok: true });

    const { jobId } = await createPipelineAndJob(
      stack,
      extractLoadDag(
        { connector_id: connector.id, table: 'src' },
        { connector_id: connector.id, table: 'dst', mode: 'append' },
      ),
    );
    const run = await waitForRunEnd(stack, jobId, (await triggerRun(stack, jobId)).id, 30_000);
    expect(run.status).toBe('succeeded');
    expect(nodeOf(run, 'load')).toMatchObject({ rows_out: 20 });
    expect((await data.query('select count(*)::int as n from dst')).rows).toEqual([{ n: 20 }]);
    await data.end();
    await waitFor(async () => receiver.requests(endpoint.path).length > 0, {
      what: 'the job.completed delivery',
      timeoutMs: 20_000,
    });
    await waitFor(
      async () => {
        const deliveries = await call<Page<Delivery>>(stack, 'GET', `/v2/webhooks/${hook.id}/deliveries`);
        return deliveries.body.data[0]?.status === 'succeeded';
      },
      { what: 'the delivery recorded as succeeded', timeoutMs: 20_000 },
    );

    // MONITOR really saw the traffic: the RPC calls carrying these bodies went through this Redis.
    const seen = stackCommands();
    expect(seen.some((c) => c.includes('catalog.connectors.update'))).toBe(true);
    expect(seen.some((c) => c.includes('catalog.connectors.resolve'))).toBe(true);
    expect(seen.some((c) => c.includes('webhooks.webhooks.create'))).toBe(true);
    // ...and the config beside the password crossed in clear: a password sent the same way would have been seen.
    expect(seen.some((c) => c.includes('catalog.connectors.create') && c.includes(dataDb))).toBe(true);
    expectNowhere([first, second, hookSecret]);
  }, 90_000);
});

describe('finding 4: a connector that moves must be sent its secrets again', () => {
  it('PUT with a new host and "********" is a 422 naming config.password, and nothing changes', async () => {
    const config = { host: 'db.internal.example', port: 5432, database: 'app', user: 'u', password: secret('stay') };
    const connector = await create<{ id: string; config: Record<string, unknown> }>(stack, '/v2/connectors', {
      name: uniqueName('pg'),
      type: 'postgres',
      config,
    });
    const moved = await call<ProblemDocument>(stack, 'PUT', `/v2/connectors/${connector.id}`, {
      body: { name: uniqueName('pg'), config: { ...connector.config, host: 'attacker.example.net' } },
    });
    expectProblem(moved, 422, 'validation_failed');
    expect(moved.body.errors).toEqual([expect.objectContaining({ path: 'config.password', code: 'secret_required' })]);
    expect((await call<Connector>(stack, 'GET', `/v2/connectors/${connector.id}`)).body.config).toMatchObject({
      host: 'db.internal.example',
    });

    const api = await create<{ id: string; config: Record<string, unknown> }>(stack, '/v2/connectors', {
      name: uniqueName('api'),
      type: 'http',
      config: { base_url: 'https://api.example.com/v1', auth_type: 'bearer', bearer_token: secret('tok') },
    });
    const elsewhere = await call<ProblemDocument>(stack, 'PUT', `/v2/connectors/${api.id}`, {
      body: { name: uniqueName('api'), config: { ...api.config, base_url: 'https://evil.example.net/' } },
    });
    expectProblem(elsewhere, 422, 'validation_failed');
    expect(elsewhere.body.errors).toEqual([
      expect.objectContaining({ path: 'config.bearer_token', code: 'secret_required' }),
    ]);
    const resent = await call<Connector>(stack, 'PUT', `/v2/connectors/${api.id}`, {
      body: {
        name: uniqueName('api'),
        config: { ...api.config, base_url: 'https://new.example.com/', bearer_token: secret('tok2') },
      },
    });
    expect(resent.status).toBe(200);
  });
});

describe('finding 9: no credentials in URLs', () => {
  // The gateway refuses them before the body crosses Redis: a credential outside a secret field would cross in clear.
  const sentToRedis = (value: string) => monitor.commands.some((c) => c.includes(value));

  it.each([
    ['http', { base_url: 'https://me:Pw-in-url-1@api.example.com/' }, 'config.base_url', 'credentials_in_url'],
    ['http', { base_url: 'https://api.example.com/v1?api_key=Pw-in-url-2' }, 'config.base_url', 'credentials_in_url'],
    [
      'openai',
      { base_url: 'https://llm.example.com/v1?token=Pw-in-url-3', model: 'tiny' },
      'config.base_url',
      'credentials_in_url',
    ],
    [
      'http',
      { base_url: 'https://api.example.com/', headers: { Authorization: 'Bearer Pw-in-url-5' } },
      'config.headers.Authorization',
      'credentials_in_header',
    ],
  ])(
    '%s %j is a 422 pointing to the secret settings, not stored, and never sent on',
    async (type, config, path, code) => {
      const res = await call<ProblemDocument>(stack, 'POST', '/v2/connectors', {
        body: { name: uniqueName(type), type, config },
      });
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual([
        expect.objectContaining({ path, code, message: expect.stringMatching(/put the credential in|use auth_type/) }),
      ]);
      expect(res.text).not.toContain('Pw-in-url');
      expect(sentToRedis('Pw-in-url')).toBe(false);
    },
  );

  it('an update that writes a credential into a URL is refused before it is sent on', async () => {
    const api = await create<{ id: string }>(stack, '/v2/connectors', {
      name: uniqueName('api'),
      type: 'http',
      config: { base_url: 'https://api.example.com/v1' },
    });
    const res = await call<ProblemDocument>(stack, 'PUT', `/v2/connectors/${api.id}`, {
      body: { name: uniqueName('api'), config: { base_url: 'https://api.example.com/v1?access_token=Pw-in-url-6' } },
    });
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'config.base_url', code: 'credentials_in_url' })]);
    expect(sentToRedis('Pw-in-url-6')).toBe(false);
  });

  it('a webhook url with ?token= is refused as user:password@ is, and never sent on', async () => {
    const res = await call<ProblemDocument>(stack, 'POST', '/v2/webhooks', {
      body: { url: `${receiver.endpoint().url}?token=Pw-in-url-4`, events: ['job.failed'], secret: secret('w') },
    });
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'url', code: 'invalid_url' })]);
    expect(res.text).not.toContain('Pw-in-url');
    expect(sentToRedis('Pw-in-url-4')).toBe(false);
  });
});

describe('finding 5: an idempotent replay of a new API key', () => {
  it('replays to its own credential only, and Redis holds no plaintext key', async () => {
    const other = await create<{ key: string }>(stack, '/v2/api-keys', {
      name: uniqueName('admin2'),
      scopes: ['admin'],
    });
    const idem = { 'idempotency-key': `idem-${randomUUID()}` };
    const body = { name: uniqueName('new'), scopes: ['read'] };
    const first = await call<CreatedApiKey>(stack, 'POST', '/v2/api-keys', { body, headers: idem });
    expect(first.status).toBe(201);
    const again = await call<CreatedApiKey>(stack, 'POST', '/v2/api-keys', { body, headers: idem });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.key).toBe(first.body.key);

    // The key belongs to the API key it made, per tenant (issue 16): another credential of the tenant gets neither a
    // replay of the first answer nor a second key, but a 422 naming the key that exists.
    const fromOther = await call<ProblemDocument>(stack, 'POST', '/v2/api-keys', {
      body,
      headers: idem,
      key: other.key,
    });
    expectProblem(fromOther, 422, 'idempotency_key_reused');
    expect(fromOther.body.detail).toContain(first.body.id);
    expect(fromOther.text).not.toContain(first.body.key);

    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${stack.redisPrefix}idem:*`);
      expect(keys.length).toBeGreaterThanOrEqual(1);
      const records = await Promise.all(keys.map((k) => redis.get(k)));
      expect(records.filter((r) => r?.includes(first.body.key))).toEqual([]);
    } finally {
      redis.disconnect();
    }
    expectNowhere([first.body.key]);
  });
});
