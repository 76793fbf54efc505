/**
 * Every network connector type goes through the one network policy, before any connection: at Test Connection and
 * on the data plane. A listener that records connections stands where the refused target is, and gets none.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { getDriver, networkPolicyProblems, type ConnectorDriver, type TestResult } from '../src/index.js';
import { connectAmqp } from '../src/amqp/connection.js';
import { connectMqtt } from '../src/mqtt/connection.js';
import { connectMysql } from '../src/mysql/connection.js';
import { connectNats } from '../src/nats/connection.js';
import { connectClient } from '../src/postgres/connection.js';
import { connectRedis } from '../src/redis/connection.js';
import { newS3Client } from '../src/s3/s3-client.js';
import { parseAmqpConfig } from '../src/amqp/amqp.config.js';
import { parseMqttConfig } from '../src/mqtt/mqtt.config.js';
import { parseMysqlConfig } from '../src/mysql/mysql.config.js';
import { parseNatsConfig } from '../src/nats/nats.config.js';
import { parsePostgresConfig } from '../src/postgres/postgres.config.js';
import { parseRedisConfig } from '../src/redis/redis.config.js';
import { parseS3Config } from '../src/s3/s3.config.js';
import { HttpSession } from '../src/http/http-session.js';
import { parseHttpConfig } from '../src/http/http.config.js';
import { chatCompletion } from '../src/openai/chat-completion.js';
import { recordingListener, type RecordingListener } from '@conduit/testing';
import { setEnv } from './support/network-policy.js';

/** A config of each network type pointing at `host`:`port`. */
const CONFIGS: Record<string, (host: string, port: number) => Record<string, unknown>> = {
  postgres: (host, port) => ({ host, port, database: 'target', user: 'u', password: 'secret-pw-1' }),
  mysql: (host, port) => ({ host, port, database: 'target', user: 'u', password: 'secret-pw-1' }),
  redis: (host, port) => ({ host, port }),
  amqp: (host, port) => ({ host, port, username: 'u', password: 'secret-pw-1' }),
  nats: (host, port) => ({ host, port }),
  mqtt: (host, port) => ({ host, port }),
  s3: (host, port) => ({
    endpoint: `http://${url(host)}:${port}`,
    bucket: 'bucket',
    access_key_id: 'k',
    secret_access_key: 'secret-pw-1',
    force_path_style: true,
  }),
  http: (host, port) => ({ base_url: `http://${url(host)}:${port}/api` }),
  openai: (host, port) => ({ base_url: `http://${url(host)}:${port}/v1`, api_key: 'secret-pw-1', model: 'm' }),
};
const url = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** One data-plane connection of each type, as reads and writes open them. */
const CONNECT: Record<string, (config: Record<string, unknown>) => Promise<unknown>> = {
  postgres: (c) => connectClient(parsePostgresConfig(c)),
  mysql: (c) => connectMysql(parseMysqlConfig(c)),
  redis: (c) => connectRedis(parseRedisConfig(c)),
  amqp: (c) => connectAmqp(parseAmqpConfig(c)),
  nats: (c) => connectNats(parseNatsConfig(c)),
  mqtt: (c) => connectMqtt(parseMqttConfig(c)),
  s3: (c) => newS3Client(parseS3Config(c)).send(new PutObjectCommand({ Bucket: 'bucket', Key: 'k', Body: 'x' })),
  http: (c) => new HttpSession(parseHttpConfig(c)).request('GET', new URL(String(c['base_url'])), undefined),
  openai: (c) => chatCompletion(c, { messages: [{ role: 'user', content: 'hi' }] }, undefined, { maxRetries: 0 }),
};

const TYPES = Object.keys(CONFIGS);
const driver = (type: string) => getDriver(type) as ConnectorDriver;
const lastCheck = (r: TestResult) => r.checks[r.checks.length - 1];
/** A result without what varies from one call to the next (timings, the time of the test, s3's echo of its endpoint). */
const stable = (r: TestResult, port: number) =>
  JSON.stringify({ ...r, latency_ms: 0, tested_at: '', checks: r.checks.map((c) => ({ ...c, latency_ms: 0 })) })
    .split(`:${port}`)
    .join(':<port>');

let listener: RecordingListener;
let restore: () => void;
beforeAll(async () => {
  listener = await recordingListener();
  restore = setEnv({
    CONNECTOR_ALLOW_PRIVATE_NETWORKS: undefined,
    CONNECTOR_ALLOWED_NETWORKS: undefined,
    DATABASE_URL: undefined,
    REDIS_URL: undefined,
  });
});
afterAll(async () => {
  restore();
  await listener.close();
});

describe('the default policy refuses internal addresses for every network type, before connecting', () => {
  it.each(TYPES)(
    '%s: Test Connection stops at network_policy for loopback, a name that resolves to it, and mapped forms',
    async (type) => {
      for (const host of ['127.0.0.1', 'localhost', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
        const result = await driver(type).test(CONFIGS[type]?.(host, listener.port) ?? {});
        expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
        expect(lastCheck(result)).toMatchObject({ name: 'network_policy', ok: false });
        expect(result.message).toMatch(/refused by the network policy: .*(loopback|IPv4-mapped)/);
      }
      expect(listener.connections()).toBe(0);
    },
  );

  it.each(TYPES)('%s: a read or write connection is refused with a config_error', async (type) => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const err = await (CONNECT[type]?.(CONFIGS[type]?.(host, listener.port) ?? {}) ?? Promise.resolve()).then(
        () => null,
        (e: unknown) => e as { errorClass?: string; message: string },
      );
      expect(err?.errorClass).toBe('config_error');
      expect(err?.message).toMatch(/refused by the network policy/);
    }
    expect(listener.connections()).toBe(0);
  });

  it.each(TYPES)(
    '%s: Test Connection answers byte for byte the same for an open and a closed refused port',
    async (type) => {
      const closedPort = listener.port === 65535 ? 65534 : listener.port + 1;
      const open = await driver(type).test(CONFIGS[type]?.('127.0.0.1', listener.port) ?? {});
      const closed = await driver(type).test(CONFIGS[type]?.('127.0.0.1', closedPort) ?? {});
      expect(stable(open, listener.port)).toBe(stable(closed, closedPort));
      expect(listener.connections()).toBe(0);
    },
  );

  it.each(['10.1.2.3', '169.254.169.254', '64:ff9b::7f00:1', '2002:7f00:1::', '100.64.0.1', '198.18.0.1'])(
    '%s is refused for every type at Test Connection and by the catalog-side check',
    async (host) => {
      for (const type of TYPES) {
        const config = CONFIGS[type]?.(host, 5432) ?? {};
        const result = await driver(type).test(config);
        expect(lastCheck(result)).toMatchObject({ name: 'network_policy', ok: false });
        const problems = await networkPolicyProblems(type, config);
        expect(problems).toEqual([
          expect.objectContaining({ code: 'network_policy', message: expect.stringContaining(host) }),
        ]);
      }
    },
  );

  it('the metadata address stays refused with private networks allowed', async () => {
    const back = setEnv({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
    try {
      for (const type of TYPES) {
        const result = await driver(type).test(CONFIGS[type]?.('169.254.169.254', 80) ?? {});
        expect(result.message).toMatch(/cloud metadata address, which connectors may never reach/);
      }
    } finally {
      back();
    }
  });
});

describe("the platform's own services are refused whatever the settings", () => {
  let platform: RecordingListener;
  let back: () => void;
  beforeAll(async () => {
    platform = await recordingListener();
    back = setEnv({
      CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
      CONNECTOR_ALLOWED_NETWORKS: '127.0.0.0/8',
      DATABASE_URL: `postgres://conduit:pw@localhost:${platform.port}/conduit_platform`,
      REDIS_URL: `redis://127.0.0.1:${platform.port}`,
    });
  });
  afterAll(async () => {
    back();
    await platform.close();
  });

  it.each(TYPES)(
    "%s: the platform's Redis endpoint, by address or by name, is refused before connecting",
    async (type) => {
      for (const host of ['127.0.0.1', 'localhost', '::ffff:127.0.0.1']) {
        const config = CONFIGS[type]?.(host, platform.port) ?? {};
        const result = await driver(type).test(config);
        expect(lastCheck(result)).toMatchObject({ name: 'network_policy', ok: false });
        expect(result).toMatchObject({ error_class: 'config_error' });
        expect(result.message).toMatch(/platform's own (Redis|PostgreSQL server)/);
        const err = await (CONNECT[type]?.(config) ?? Promise.resolve()).then(
          () => null,
          (e: unknown) => e as Error,
        );
        expect(err?.message).toMatch(/platform's own/);
      }
      expect(platform.connections()).toBe(0);
    },
  );

  it("refuses every database of the platform's PostgreSQL server, to every connector type, at create, test and connect", async () => {
    // Without REDIS_URL on that port, only the database server's rule applies.
    const only = setEnv({ REDIS_URL: undefined });
    try {
      const config = CONFIGS['postgres']?.('127.0.0.1', platform.port) ?? {};
      // The platform's database, and another of the same server: a role that works there reads the platform's
      // files and databases from any of them (pg_read_binary_file, COPY TO PROGRAM, dblink).
      for (const database of ['conduit_platform', 'tenant_data', 'postgres']) {
        const target = { ...config, database };
        expect(await networkPolicyProblems('postgres', target)).toEqual([
          expect.objectContaining({
            path: 'config.host',
            code: 'platform_service',
            message: expect.stringContaining("is the platform's own PostgreSQL server"),
          }),
        ]);
        const result = await driver('postgres').test(target);
        expect(result.message).toMatch(/platform's own PostgreSQL server/);
        // Which database the platform keeps there is not the tenant's to learn.
        expect(result.message).not.toContain('conduit_platform');
        await expect(CONNECT['postgres']?.(target)).rejects.toThrow(/platform's own PostgreSQL server/);
      }
      for (const type of TYPES) {
        const result = await driver(type).test(CONFIGS[type]?.('localhost', platform.port) ?? {});
        expect(result.message).toMatch(/platform's own PostgreSQL server/);
      }
      expect(platform.connections()).toBe(0);
    } finally {
      only();
    }
  });
});
