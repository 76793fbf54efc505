// A real RedisStreamsServer for service 'catalog' answering only catalog.connectors.resolve, for one tenant.
import 'reflect-metadata';
import { Controller, Module, type DynamicModule, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { startTestMicroservice } from '@conduit/testing';
import { handleRpc, type ResolvedConnector } from '@conduit/contracts';

const CONNECTORS = Symbol('CONNECTORS');

export interface CatalogStubData {
  tenantId: string;
  connectors: ResolvedConnector[];
  /** Every request seen, to check the context the executor sends. */
  requests: unknown[];
}

@Controller()
class ResolveController {
  static data: CatalogStubData;

  @MessagePattern('catalog.connectors.resolve')
  resolve(@Payload() message: unknown) {
    const data = ResolveController.data;
    data.requests.push(message);
    return handleRpc(
      'catalog.connectors.resolve',
      message,
      async (d, ctx) => data.connectors.filter((c) => ctx.tenant_id === data.tenantId && d.ids.includes(c.id)),
      () => undefined,
    );
  }
}

@Module({})
class CatalogStubModule {
  static forRoot(): DynamicModule {
    return {
      module: CatalogStubModule,
      controllers: [ResolveController],
      providers: [{ provide: CONNECTORS, useValue: null }],
    };
  }
}

export async function startCatalogStub(prefix: string, data: CatalogStubData): Promise<INestMicroservice> {
  ResolveController.data = data;
  return startTestMicroservice(CatalogStubModule.forRoot(), { service: 'catalog', prefix });
}
