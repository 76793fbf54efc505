import 'reflect-metadata';
import { Controller, Module, type DynamicModule, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Redis } from 'ioredis';
import { AppError, CATALOG_GENERATION_KEY_PREFIX, handleRpc, type PipelineSnapshot } from '@conduit/contracts';
import { TenantGenerations, newId } from '@conduit/service-kit';
import { startTestMicroservice } from '@conduit/testing';

/** The pipelines the stub catalog knows, per tenant. */
export class PipelineStore {
  private readonly byKey = new Map<string, PipelineSnapshot>();
  /** How long each snapshot takes to answer: a slow catalog, for tests of deadlines. */
  snapshotDelayMs = 0;
  /** Pipelines whose snapshot answers a 503 (the catalog's database out), and how often each was asked. */
  readonly unavailable = new Set<string>();
  readonly asked = new Map<string, number>();
  /** What the catalog bumps after a change, on the suite's prefix (`connect`). */
  private generations?: TenantGenerations;

  /** Opens the store's Redis connection for `changed`; the suite closes it after the tests. */
  connect(redisUrl: string, prefix: string): { close(): Promise<void> } {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
    this.generations = new TenantGenerations(redis, `${prefix}${CATALOG_GENERATION_KEY_PREFIX}`);
    return { close: async () => void (await redis.quit().catch(() => redis.disconnect())) };
  }

  /**
   * What the catalog does after a change of the tenant's pipelines: the scheduler's held snapshots of the tenant are
   * no longer used. Tests call it after replacing a pipeline, and after making the catalog slow or out, so that the
   * scheduler asks the catalog rather than using what it holds.
   */
  async changed(tenantId: string): Promise<void> {
    if (!this.generations) throw new Error('the store is not connected');
    await this.generations.around(tenantId, async () => undefined);
  }

  /** Adds a valid two-node pipeline (or the given snapshot fields) for the tenant; answers its id. */
  add(tenantId: string, overrides: Partial<PipelineSnapshot> = {}): PipelineSnapshot {
    const snapshot: PipelineSnapshot = {
      id: newId('pipeline'),
      version: 1,
      dag: {
        nodes: [
          { id: 'orders', type: 'source', config: { connector_id: 'con_x', table: 'orders' } },
          { id: 'to_dw', type: 'sink', config: { connector_id: 'con_y', table: 'orders_copy', mode: 'append' } },
        ],
        edges: [{ from: 'orders', to: 'to_dw' }],
      },
      valid: true,
      errors: [],
      connectors: [
        { id: 'con_x', version: 3 },
        { id: 'con_y', version: 1 },
      ],
      ...overrides,
    };
    this.byKey.set(`${tenantId}/${snapshot.id}`, snapshot);
    return snapshot;
  }

  get(tenantId: string, id: string): PipelineSnapshot | undefined {
    return this.byKey.get(`${tenantId}/${id}`);
  }
}

const STORE = Symbol('STORE');

@Controller()
class StubSnapshotController {
  static store: PipelineStore;

  @MessagePattern('catalog.pipelines.snapshot')
  snapshot(@Payload() message: unknown) {
    return handleRpc(
      'catalog.pipelines.snapshot',
      message,
      async (d, ctx) => {
        const store = StubSnapshotController.store;
        if (store.snapshotDelayMs > 0) await new Promise((r) => setTimeout(r, store.snapshotDelayMs));
        store.asked.set(d.id, (store.asked.get(d.id) ?? 0) + 1);
        if (store.unavailable.has(d.id))
          throw new AppError('service_unavailable', 'the catalog database is unavailable', undefined, 'database');
        const found = store.get(ctx.tenant_id, d.id);
        if (!found) throw new AppError('not_found', `pipeline ${d.id} was not found`);
        return found;
      },
      () => undefined,
    );
  }
}

@Module({})
class StubCatalogModule {
  static forRoot(store: PipelineStore): DynamicModule {
    StubSnapshotController.store = store;
    return {
      module: StubCatalogModule,
      controllers: [StubSnapshotController],
      providers: [{ provide: STORE, useValue: store }],
    };
  }
}

/**
 * A real RPC server for service `catalog` on the suite's prefix, answering only `catalog.pipelines.snapshot`
 * from an in-memory store: the scheduler is tested over the real transport without the catalog app.
 */
export async function startStubCatalog(
  redisUrl: string,
  prefix: string,
  store: PipelineStore,
): Promise<INestMicroservice> {
  return startTestMicroservice(StubCatalogModule.forRoot(store), { service: 'catalog', prefix, url: redisUrl });
}
