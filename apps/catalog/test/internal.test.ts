import { freshCatalog, inTransit, newTenant, type CatalogUnderTest } from './support/catalog-db.js';
import { ConnectorSecrets } from '../src/connectors/connector-secrets.js';
import { ConnectorsService } from '../src/connectors/connectors.service.js';
import { PipelinesService } from '../src/pipelines/pipelines.service.js';
import { NoPipelineUsage } from '../src/pipelines/pipeline-usage.js';
import { NoRecordedSchemas } from '../src/pipelines/recorded-schemas.js';
import { RedisCatalogChanges, type CatalogChanges } from '../src/common/catalog-changes.js';
import {
  CATALOG_GENERATION_KEY_PREFIX,
  CONNECTORS_CHANGED_CHANNEL,
  connectorChangedSchema,
  type ConnectorChanged,
} from '@conduit/contracts';
import { TenantGenerations } from '@conduit/service-kit';
import { waitFor } from '@conduit/testing';
import { pino } from 'pino';
import { REDIS_URL, deleteKeys, requireRedis, testPrefix } from './support/redis.js';

/** The internal operations other services call: a pipeline snapshot for a run, connector configs for an executor. */
describe('internal catalog operations', () => {
  let catalog: CatalogUnderTest;
  beforeAll(async () => {
    catalog = await freshCatalog();
  });
  afterAll(async () => {
    await catalog.drop();
  });

  const pgConfig = {
    host: '127.0.0.1',
    port: 5432,
    database: 'postgres',
    user: 'postgres',
    password: 'p4ss-w0rd-snapshot',
  };

  it('snapshots a pipeline with its version, DAG and current validity', async () => {
    const t = newTenant();
    const con = (
      await catalog.connectors.create(t, { name: 'pg', type: 'postgres', config: inTransit(catalog.key, t, pgConfig) })
    ).data;
    const dag = {
      nodes: [
        { id: 'src', type: 'source', config: { connector_id: con.id, table: 'a' } },
        { id: 'out', type: 'sink', config: { connector_id: con.id, table: 'b', mode: 'append' } },
      ],
      edges: [{ from: 'src', to: 'out' }],
    };
    const pipeline = (await catalog.pipelines.create(t, { name: 'p', dag })).data;
    const snap = await catalog.pipelines.snapshot(t, pipeline.id);
    // With the versions of its connectors, which the run command carries to the executors' caches.
    expect(snap).toEqual({
      id: pipeline.id,
      version: 1,
      dag,
      valid: true,
      errors: [],
      connectors: [{ id: con.id, version: 1 }],
    });

    // The connector goes away: the next snapshot re-validates and says why the pipeline cannot run.
    await catalog.connectors.delete(t, con.id);
    const after = await catalog.pipelines.snapshot(t, pipeline.id);
    expect(after.valid).toBe(false);
    expect(after.errors.map((e) => e.code)).toContain('unknown_connector');

    await expect(catalog.pipelines.snapshot(newTenant(), pipeline.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('resolves connector configs with their secrets sealed as stored, only for their own tenant', async () => {
    const t = newTenant();
    const con = (
      await catalog.connectors.create(t, { name: 'pg', type: 'postgres', config: inTransit(catalog.key, t, pgConfig) })
    ).data;
    expect(con.config['password']).toBe('********');
    const resolved = await catalog.connectors.resolve(t, [con.id, 'con_malformed', con.id]);
    expect(resolved).toEqual([
      {
        id: con.id,
        type: 'postgres',
        config: expect.objectContaining({ password: expect.stringMatching(/^enc:v2:[0-9a-f]{8}:/) }),
        version: 1,
      },
    ]);
    expect(JSON.stringify(resolved)).not.toContain(pgConfig.password);
    expect(
      new ConnectorSecrets(catalog.key).open('postgres', resolved[0]?.config ?? {}, {
        tenantId: t,
        connectorId: con.id,
      })['password'],
    ).toBe(pgConfig.password);
    expect(await catalog.connectors.resolve(newTenant(), [con.id])).toEqual([]);
  });

  it('announces an update (its new version) and a delete on Redis after the commit, for executor caches', async () => {
    const prefix = testPrefix();
    const subscriber = await requireRedis();
    const heard: ConnectorChanged[] = [];
    subscriber.on('message', (_channel: string, text: string) =>
      heard.push(connectorChangedSchema.parse(JSON.parse(text))),
    );
    await subscriber.subscribe(`${prefix}${CONNECTORS_CHANGED_CHANNEL}`);
    const changes = new RedisCatalogChanges({ redisUrl: REDIS_URL, redisPrefix: prefix }, pino({ level: 'silent' }));
    const connectors = new ConnectorsService(catalog.ds, new ConnectorSecrets(catalog.key), changes);
    try {
      const t = newTenant();
      const con = (
        await connectors.create(t, { name: 'pg', type: 'postgres', config: inTransit(catalog.key, t, pgConfig) })
      ).data;
      await connectors.update(t, con.id, { name: 'pg2', config: { ...con.config, database: 'other' } });
      // What the executors would read on hearing it is already the new version.
      expect((await connectors.resolve(t, [con.id]))[0]?.version).toBe(2);
      await connectors.delete(t, con.id);
      await waitFor(() => heard.length >= 2, { what: 'both announcements', timeoutMs: 5000 });
      expect(heard).toEqual([
        { tenant_id: t, connector_id: con.id, version: 2 },
        { tenant_id: t, connector_id: con.id, version: null },
      ]);
    } finally {
      await changes.close();
      await subscriber.quit();
    }
  });

  it('marks every change a held snapshot depends on as pending before its commit, and moves the generation before answering', async () => {
    const prefix = testPrefix();
    const redis = await requireRedis();
    const generations = new TenantGenerations(redis, `${prefix}${CATALOG_GENERATION_KEY_PREFIX}`);
    const redisChanges = new RedisCatalogChanges(
      { redisUrl: REDIS_URL, redisPrefix: prefix },
      pino({ level: 'silent' }),
    );
    // What the scheduler would read while each write runs, before its commit.
    const readDuringWrites: (string | null)[] = [];
    const changes: CatalogChanges = {
      change: (tenantId, write) =>
        redisChanges.change(tenantId, async () => {
          readDuringWrites.push(await generations.read(tenantId));
          return write();
        }),
      connectorChanged: (change) => redisChanges.connectorChanged(change),
    };
    const connectors = new ConnectorsService(catalog.ds, new ConnectorSecrets(catalog.key), changes);
    const pipelines = new PipelinesService(catalog.ds, new NoPipelineUsage(), new NoRecordedSchemas(), changes);
    try {
      const t = newTenant();
      const other = newTenant();
      const otherBefore = await generations.read(other);
      const seen = [await generations.read(t)];
      const step = async (what: string, change: () => Promise<unknown>) => {
        const writes = readDuringWrites.length;
        await change();
        // The answer comes once the generation moved: read right after, it is usable and new.
        const now = await generations.read(t);
        expect({
          what,
          wrote: readDuringWrites.length - writes,
          during: readDuringWrites.at(-1),
          usable: now !== null,
          moved: !seen.includes(now),
        }).toEqual({
          what,
          wrote: 1,
          during: null,
          usable: true,
          moved: true,
        });
        seen.push(now);
      };
      const con = (
        await connectors.create(t, { name: 'pg', type: 'postgres', config: inTransit(catalog.key, t, pgConfig) })
      ).data;
      const dag = { nodes: [{ id: 'src', type: 'source', config: { connector_id: con.id, table: 'a' } }], edges: [] };
      const pipeline = (await pipelines.create(t, { name: 'p', dag })).data;
      await step('pipeline updated', () => pipelines.update(t, pipeline.id, { name: 'p2', dag }));
      await step('connector updated', () =>
        connectors.update(t, con.id, { name: 'pg2', config: inTransit(catalog.key, t, pgConfig) }),
      );
      await step('pipeline deleted', () => pipelines.delete(t, pipeline.id));
      await step('connector deleted', () => connectors.delete(t, con.id));
      // Another tenant's copies stay good.
      expect(await generations.read(other)).toBe(otherBefore);
    } finally {
      await redisChanges.close();
      await deleteKeys(redis, prefix);
      await redis.quit();
    }
  });
});
