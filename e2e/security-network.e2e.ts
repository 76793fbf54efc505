import { randomUUID } from 'node:crypto';
import { startStack, type Stack } from '@conduit/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { call, type ApiResponse } from './support/client.js';
import {
  createConnector,
  createPipelineAndJob,
  extractLoadDag,
  nodeOf,
  triggerRun,
  uniqueName,
  waitFor,
  waitForRunEnd,
} from './support/helpers.js';
import { recordingListener, startOwnRedis, type OwnRedis, type RecordingListener } from '@conduit/testing';
import { monitorRedis } from './support/redis-monitor.js';
import { useTargetStack } from './support/target-stack.js';
import type { Connector, CreatedApiKey } from '@conduit/contracts';

// Issue 14, findings 2 and 6: connectors may not reach the platform's own PostgreSQL and Redis, nor internal
// addresses unless the operator allows them, and Test Connection does not tell an open refused port from a closed one.

type Check = { name: string; ok: boolean; latency_ms: number; message: string };
type TestAnswer = {
  ok: boolean;
  latency_ms: number;
  message: string;
  error_class: string | null;
  checks: Check[];
  details: Record<string, unknown>;
  tested_at: string;
};

const bracket = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** A config of each network connector type pointing at host:port. */
const CONFIGS: Record<string, (host: string, port: number) => Record<string, unknown>> = {
  postgres: (host, port) => ({ host, port, database: 'tenant_data', user: 'postgres' }),
  mysql: (host, port) => ({ host, port, database: 'tenant_data', user: 'root' }),
  redis: (host, port) => ({ host, port }),
  amqp: (host, port) => ({ host, port, username: 'guest', password: 'guest' }),
  nats: (host, port) => ({ host, port }),
  mqtt: (host, port) => ({ host, port }),
  s3: (host, port) => ({
    endpoint: `http://${bracket(host)}:${port}`,
    bucket: 'tenant-data',
    access_key_id: 'AKIA',
    secret_access_key: 'secret-key-1',
    force_path_style: true,
  }),
  http: (host, port) => ({ base_url: `http://${bracket(host)}:${port}/api` }),
  openai: (host, port) => ({ base_url: `http://${bracket(host)}:${port}/v1`, api_key: 'sk-test-1', model: 'tiny' }),
};

function expectRefusedAtCreate(res: ApiResponse, code: string, message: RegExp): void {
  expect(res.status).toBe(422);
  expect(res.body).toMatchObject({
    code: 'validation_failed',
    errors: [expect.objectContaining({ code, message: expect.stringMatching(message) })],
  });
}

/** Points a stored connector elsewhere behind the API's back, as a DNS change (or a connector older than the policy) does. */
async function repoint(platform: pg.Client, connectorId: string, config: Record<string, unknown>): Promise<void> {
  const { rowCount } = await platform.query('update catalog.connectors set config = $1 where id = $2', [
    config,
    connectorId,
  ]);
  expect(rowCount).toBe(1);
}

async function testConnection(stack: Stack, connectorId: string): Promise<TestAnswer> {
  const res = await call<TestAnswer>(stack, 'POST', `/v2/connectors/${connectorId}/test`);
  expect(res.status).toBe(200);
  return res.body;
}

describe('with private networks allowed, the platform itself stays out of reach', () => {
  let platform: pg.Client;
  // Declared before the stack's hooks, so it runs before the stack stops (and its database goes).
  afterAll(async () => {
    await platform?.end();
  });
  const target = useTargetStack();
  let platformDatabase: string;
  /** The platform's PostgreSQL server (a server of the run's own, apart from the suites' target databases). */
  let platformPort: number;
  let platformRedis: { host: string; port: number };
  let ownRedis: OwnRedis;
  const apiKeyCount = async () =>
    Number((await platform.query<{ n: string }>('select count(*) as n from gateway.api_keys')).rows[0]?.n);

  beforeAll(async () => {
    ownRedis = await startOwnRedis();
    platform = new pg.Client({ connectionString: target.stack.databaseUrl });
    await platform.connect();
    platformDatabase = new URL(target.stack.databaseUrl).pathname.slice(1);
    platformPort = Number(new URL(target.stack.databaseUrl).port || 5432);
    const redisUrl = new URL(target.stack.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    platformRedis = { host: redisUrl.hostname, port: Number(redisUrl.port || 6379) };
    // One more key, so that a connector that could write one would change the count we compare.
    expect(
      (
        await call<CreatedApiKey>(target.stack, 'POST', '/v2/api-keys', {
          body: { name: uniqueName('key'), scopes: ['read'] },
        })
      ).status,
    ).toBe(201);
  });

  afterAll(async () => {
    await ownRedis?.destroy();
  });

  it("refuses a postgres connector to any database of the platform's own server at create, by address and by name (422)", async () => {
    // Not only the platform's database: from any database of its server, the platform's role (a superuser here)
    // reads the server's files and other databases (pg_read_binary_file of its WAL, an attacker's probe).
    for (const database of [platformDatabase, 'postgres', 'template1'])
      for (const host of ['127.0.0.1', 'localhost', '::ffff:127.0.0.1']) {
        const res = await call<Connector>(target.stack, 'POST', '/v2/connectors', {
          body: {
            name: uniqueName('pg'),
            type: 'postgres',
            config: { host, port: platformPort, database, user: 'postgres' },
          },
        });
        expectRefusedAtCreate(res, 'platform_service', /is the platform's own PostgreSQL server/);
      }
    // Another server (the suites' target databases) is a tenant's own business.
    await createConnector(target.stack, 'postgres', target.targetDb.config(), 'pg');
  });

  it("refuses the platform's Redis to a redis connector and to an http connector at its port (422)", async () => {
    expectRefusedAtCreate(
      await call<Connector>(target.stack, 'POST', '/v2/connectors', {
        body: { name: uniqueName('redis'), type: 'redis', config: platformRedis },
      }),
      'platform_service',
      /platform's own Redis/,
    );
    expectRefusedAtCreate(
      await call<Connector>(target.stack, 'POST', '/v2/connectors', {
        body: {
          name: uniqueName('http'),
          type: 'http',
          config: { base_url: `http://localhost:${platformRedis.port}/` },
        },
      }),
      'platform_service',
      /platform's own Redis/,
    );
    // The same refusal when an existing connector is changed to point there.
    const own = await createConnector(target.stack, 'redis', { host: ownRedis.host, port: ownRedis.port });
    const put = await call<Connector>(target.stack, 'PUT', `/v2/connectors/${own}`, {
      body: { name: uniqueName('redis'), config: platformRedis },
    });
    expectRefusedAtCreate(put, 'platform_service', /platform's own Redis/);
  });

  it("refuses at test and at run a postgres connector repointed at the platform's server, reading and writing nothing", async () => {
    const connector = await createConnector(target.stack, 'postgres', target.targetDb.config(), 'pg');
    const { jobId } = await createPipelineAndJob(
      target.stack,
      extractLoadDag(
        { connector_id: connector, query: 'select * from gateway.api_keys' },
        { connector_id: connector, table: 'gateway.api_keys', mode: 'append' },
      ),
    );
    const before = await apiKeyCount();
    for (const database of [platformDatabase, 'postgres']) {
      await repoint(
        platform,
        connector,
        target.targetDb.config({ host: '127.0.0.1', port: platformPort, database, user: 'postgres' }),
      );
      const tested = await testConnection(target.stack, connector);
      expect(tested).toMatchObject({
        ok: false,
        error_class: 'config_error',
        message: expect.stringMatching(/is the platform's own PostgreSQL server/),
      });
      expect(tested.checks.at(-1)).toMatchObject({ name: 'network_policy', ok: false });

      const run = await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id);
      expect(run.status).toBe('failed');
      expect(JSON.stringify(nodeOf(run, 'extract').error)).toMatch(/is the platform's own PostgreSQL server/);
    }
    expect(await apiKeyCount()).toBe(before);
  });

  it("refuses at test and at run a redis connector repointed at the platform's Redis: MONITOR sees no command of it", async () => {
    const connector = await createConnector(target.stack, 'redis', { host: ownRedis.host, port: ownRedis.port });
    const streamKey = `security-${randomUUID()}`;
    const { jobId } = await createPipelineAndJob(
      target.stack,
      extractLoadDag(
        { connector_id: connector, stream: streamKey },
        { connector_id: target.connectorId, table: 'stolen', mode: 'append' },
      ),
    );
    await repoint(platform, connector, platformRedis);

    const monitor = await monitorRedis(platformRedis);
    const seen = () => monitor.commands.map((command) => command.toLowerCase());
    const prober = new Redis({ ...platformRedis, lazyConnect: true });
    try {
      // The MONITOR works: it sees a marker of ours.
      const marker = `marker-${randomUUID()}`;
      await prober.connect();
      await prober.echo(marker);
      await waitFor(async () => seen().some((line) => line.includes(marker)), {
        what: 'MONITOR to see the marker',
        timeoutMs: 20_000,
      });

      const tested = await testConnection(target.stack, connector);
      expect(tested).toMatchObject({
        ok: false,
        error_class: 'config_error',
        message: expect.stringMatching(/platform's own Redis/),
      });
      const run = await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id);
      expect(run.status).toBe('failed');
      expect(JSON.stringify(nodeOf(run, 'extract').error)).toMatch(/platform's own Redis/);

      const after = `after-${randomUUID()}`;
      await prober.echo(after);
      await waitFor(async () => seen().some((line) => line.includes(after)), {
        what: 'MONITOR to see the closing marker',
        timeoutMs: 20_000,
      });
      // A redis connector names its connection "conduit" and reads the stream with X* commands: none reached the server
      // (the platform's own traffic mentions the key too, inside RPC and queue payloads, so only commands on it count).
      const key = streamKey.toLowerCase();
      const fromConnector = seen().filter(
        (line) =>
          line.startsWith('client setname conduit') || (/^x[a-z]+ /.test(line) && line.split(' ').includes(key)),
      );
      expect(fromConnector).toEqual([]);
    } finally {
      prober.disconnect();
      monitor.stop();
    }
  });

  it('adds a warning check to Test Connection when the postgres session is a superuser', async () => {
    const tested = await testConnection(target.stack, target.connectorId);
    expect(tested.ok).toBe(true);
    expect(tested.checks.find((c) => c.name === 'privileges')).toMatchObject({
      ok: true,
      message: expect.stringMatching(/^warning: .*superuser/),
    });
    expect(tested.details['warnings']).toEqual([expect.stringMatching(/run programs/)]);
  });
});

describe('with the default policy, internal addresses are refused for every type', () => {
  let stack: Stack;
  let platform: pg.Client;
  let listener: RecordingListener;

  beforeAll(async () => {
    listener = await recordingListener();
    stack = await startStack();
    platform = new pg.Client({ connectionString: stack.databaseUrl });
    await platform.connect();
  }, 120_000);

  afterAll(async () => {
    await platform?.end();
    await stack?.stop();
    await listener?.close();
  });

  it.each(['127.0.0.1', '10.1.2.3', '169.254.169.254', '::ffff:127.0.0.1', '64:ff9b::7f00:1'])(
    'refuses %s at create, for every network type (422)',
    async (host) => {
      for (const [type, config] of Object.entries(CONFIGS)) {
        const res = await call<Connector>(stack, 'POST', '/v2/connectors', {
          body: { name: uniqueName(type), type, config: config(host, 8080) },
        });
        expectRefusedAtCreate(res, 'network_policy', /refused by the network policy/);
      }
    },
  );

  it.each(['postgres', 'redis', 'http'])(
    '%s: Test Connection answers the same for an open and a closed refused port, connecting to neither',
    async (type) => {
      const make = CONFIGS[type] as (host: string, port: number) => Record<string, unknown>;
      const connector = await createConnector(stack, type, make('93.184.215.14', 8080));
      const closedPort = listener.port === 65535 ? 65534 : listener.port + 1;
      await repoint(platform, connector, make('127.0.0.1', listener.port));
      const open = await testConnection(stack, connector);
      await repoint(platform, connector, make('127.0.0.1', closedPort));
      const closed = await testConnection(stack, connector);

      const stable = (r: TestAnswer) => ({
        ...r,
        latency_ms: 0,
        tested_at: '',
        checks: r.checks.map((c) => ({ ...c, latency_ms: 0 })),
      });
      expect(JSON.stringify(stable(open))).toBe(JSON.stringify(stable(closed)));
      expect(open).toMatchObject({
        ok: false,
        error_class: 'config_error',
        message: expect.stringMatching(/127\.0\.0\.1 is a loopback address/),
      });
      expect(listener.connections()).toBe(0);
    },
  );
});
