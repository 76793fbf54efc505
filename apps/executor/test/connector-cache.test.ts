// The executor's connector cache over real queues, a real RedisStreams catalog stub that counts what it is asked,
// the catalog's change announcements on Redis pub/sub, and a real PostgreSQL: a run whose connectors are held at the
// versions its command names asks the catalog nothing; an announced update or delete is seen by the next run; one
// tenant's cached connector is never another's.
import type { INestMicroservice } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { CONNECTORS_CHANGED_CHANNEL, type ConnectorChanged, type RunReport } from '@conduit/contracts';
import { encryptSecrets } from '@conduit/connectors';
import { SecretBox } from '@conduit/secrets';
import { newId } from '@conduit/service-kit';
import { waitFor } from '@conduit/testing';
import type { ExecutorRuntime } from '../src/runs/executor-runtime.js';
import { startCatalogStub, type CatalogStubData } from './support/catalog-stub.js';
import { newSchedulerStubData, startSchedulerStub } from './support/scheduler-stub.js';
import { runCommand, startExecutor, TEST_SECRETS_KEY } from './support/executor.js';
import { connectPg, connectorConfig, uniqueSchema } from './support/postgres.js';
import { openQueues, reportsOf } from './support/queues.js';
import { connectRedis, deleteKeys, testPrefix } from './support/redis.js';

const TENANT = 'tnt_cache_test';
const prefix = testPrefix();
const schema = uniqueSchema();

function sealedConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return encryptSecrets(
    'postgres',
    { ...connectorConfig(schema), password: 'sealed-pw', ...overrides },
    new SecretBox(TEST_SECRETS_KEY),
    { tenantId: TENANT, connectorId: 'con_cached' },
  );
}

const stub: CatalogStubData = {
  tenantId: TENANT,
  connectors: [{ id: 'con_cached', type: 'postgres', config: sealedConfig(), version: 1 }],
  requests: [],
};
let redis: Redis;
let db: pg.Client;
let catalog: INestMicroservice;
let scheduler: INestMicroservice;
let runtime: ExecutorRuntime;
let queues: { runs: Queue; reports: Queue; logs: Queue };

const dag = {
  nodes: [{ id: 'q', type: 'sql', config: { connector_id: 'con_cached', sql: 'select count(*) from items' } }],
  edges: [],
};

/** Runs the DAG as `tenantId` with the command naming con_cached at `version`; answers its run.finished. */
async function run(version: number, tenantId = TENANT): Promise<Extract<RunReport, { type: 'run.finished' }>> {
  const runId = newId('run');
  const command = { ...runCommand(runId, tenantId, dag), connectors: [{ id: 'con_cached', version }] };
  await queues.runs.add('run', command, { jobId: runId });
  let found: RunReport | undefined;
  await waitFor(
    async () => {
      found = (await reportsOf(queues.reports, runId)).find((r) => r.type === 'run.finished');
      return found !== undefined;
    },
    { what: `run.finished of ${runId}`, timeoutMs: 20_000 },
  );
  return found as Extract<RunReport, { type: 'run.finished' }>;
}

/** What the catalog announces after its commit (apps/catalog connector-changes.ts). */
async function announce(change: ConnectorChanged): Promise<void> {
  const receivers = await redis.publish(`${prefix}${CONNECTORS_CHANGED_CHANNEL}`, JSON.stringify(change));
  expect(receivers).toBe(1);
}

beforeAll(async () => {
  redis = await connectRedis();
  db = await connectPg();
  await db.query(`create schema ${schema}`);
  await db.query(`create table ${schema}.items (id integer primary key)`);
  await db.query(`insert into ${schema}.items select g from generate_series(1, 10) g`);
  catalog = await startCatalogStub(prefix, stub);
  scheduler = await startSchedulerStub(prefix, newSchedulerStubData());
  queues = openQueues(prefix);
  runtime = await startExecutor(prefix);
});

afterAll(async () => {
  await runtime?.stop(1000);
  await catalog?.close();
  await scheduler?.close();
  await Promise.all(queues ? Object.values(queues).map((q) => q.close()) : []);
  if (redis) {
    await deleteKeys(redis, prefix);
    await redis.quit();
  }
  if (db) {
    await db.query(`drop schema if exists ${schema} cascade`);
    await db.end();
  }
});

it('asks the catalog once for connectors held at their versions; an announced update or delete is seen next', async () => {
  expect((await run(1)).status).toBe('succeeded');
  expect(stub.requests).toHaveLength(1);
  expect((await run(1)).status).toBe('succeeded');
  expect(stub.requests).toHaveLength(1);

  // Updated after the next run's trigger: its command still names version 1, and it must not get that config.
  stub.connectors = [
    { id: 'con_cached', type: 'postgres', config: sealedConfig({ database: 'no_such_db_cache_test' }), version: 2 },
  ];
  await announce({ tenant_id: TENANT, connector_id: 'con_cached', version: 2 });
  const updated = await run(1);
  expect(stub.requests).toHaveLength(2);
  expect(updated.status).toBe('failed');
  expect(updated.error?.message).toMatch(/no_such_db_cache_test/);

  // A command naming a newer version than the one held asks again.
  stub.connectors = [{ id: 'con_cached', type: 'postgres', config: sealedConfig(), version: 3 }];
  expect((await run(3)).status).toBe('succeeded');
  expect(stub.requests).toHaveLength(3);
  expect((await run(3)).status).toBe('succeeded');
  expect(stub.requests).toHaveLength(3);

  // Deleted: the next run fails as a run of a missing connector always has.
  stub.connectors = [];
  await announce({ tenant_id: TENANT, connector_id: 'con_cached', version: null });
  const deleted = await run(3);
  expect(stub.requests).toHaveLength(4);
  expect(deleted.status).toBe('failed');
  expect(deleted.error).toMatchObject({
    node_id: 'q',
    message: 'node "q" failed: connector "con_cached" does not exist',
  });
});

it("never hands one tenant's cached connector to another tenant's run", async () => {
  stub.connectors = [{ id: 'con_cached', type: 'postgres', config: sealedConfig(), version: 4 }];
  expect((await run(4)).status).toBe('succeeded');
  const asked = stub.requests.length;
  // Another tenant's command names the same id and version: the catalog is asked as that tenant, and answers nothing.
  const other = await run(4, 'tnt_cache_other');
  expect(stub.requests).toHaveLength(asked + 1);
  expect(stub.requests.at(-1)).toMatchObject({ ctx: { tenant_id: 'tnt_cache_other' }, data: { ids: ['con_cached'] } });
  expect(other.status).toBe('failed');
  expect(other.error?.message).toBe('node "q" failed: connector "con_cached" does not exist');
  // The tenant's own run still finds it held.
  expect((await run(4)).status).toBe('succeeded');
  expect(stub.requests).toHaveLength(asked + 1);
});
