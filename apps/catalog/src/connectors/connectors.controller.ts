import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RpcContext, RpcData } from '@conduit/contracts';
import { ConnectorsService, type ConnectorTypeList } from './connectors.service.js';
import { CATALOG_LOGGER } from '../common/tokens.js';
import { RpcRoute } from '@conduit/service-kit';

@Controller()
export class ConnectorsController {
  constructor(
    private readonly connectors: ConnectorsService,
    @Inject(CATALOG_LOGGER) readonly logger: Logger,
  ) {}

  @RpcRoute('catalog.connectors.create')
  create(d: RpcData<'catalog.connectors.create'>, ctx: RpcContext) {
    return this.connectors.create(ctx.tenant_id, d.body, ctx);
  }

  @RpcRoute('catalog.connectors.list')
  list(d: RpcData<'catalog.connectors.list'>, ctx: RpcContext) {
    return this.connectors.list(ctx.tenant_id, d.query);
  }

  @RpcRoute('catalog.connectors.get')
  get(d: RpcData<'catalog.connectors.get'>, ctx: RpcContext) {
    return this.connectors.get(ctx.tenant_id, d.id);
  }

  @RpcRoute('catalog.connectors.update')
  update(d: RpcData<'catalog.connectors.update'>, ctx: RpcContext) {
    return this.connectors.update(ctx.tenant_id, d.id, d.body, d.if_match);
  }

  @RpcRoute('catalog.connectors.delete')
  delete(d: RpcData<'catalog.connectors.delete'>, ctx: RpcContext) {
    return this.connectors.delete(ctx.tenant_id, d.id, d.if_match);
  }

  @RpcRoute('catalog.connectors.test')
  test(d: RpcData<'catalog.connectors.test'>, ctx: RpcContext) {
    return this.connectors.test(ctx.tenant_id, d.id);
  }

  @RpcRoute('catalog.connector-types.list')
  types(): Promise<ConnectorTypeList> {
    return Promise.resolve(this.connectors.types());
  }

  @RpcRoute('catalog.connectors.resolve')
  resolve(d: RpcData<'catalog.connectors.resolve'>, ctx: RpcContext) {
    return this.connectors.resolve(ctx.tenant_id, d.ids);
  }
}
