import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { handleRpc } from '@conduit/contracts';
import { ConnectorsService, type ConnectorTypeList } from './connectors.service.js';
import { CATALOG_LOGGER } from '../common/tokens.js';
import { reportUnexpected } from '../common/unexpected-error.js';

@Controller()
export class ConnectorsController {
  constructor(
    private readonly connectors: ConnectorsService,
    @Inject(CATALOG_LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('catalog.connectors.create')
  create(@Payload() message: unknown) {
    const p = 'catalog.connectors.create';
    return handleRpc(p, message, (d, ctx) => this.connectors.create(ctx.tenant_id, d.body), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.connectors.list')
  list(@Payload() message: unknown) {
    const p = 'catalog.connectors.list';
    return handleRpc(p, message, (d, ctx) => this.connectors.list(ctx.tenant_id, d.query), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.connectors.get')
  get(@Payload() message: unknown) {
    const p = 'catalog.connectors.get';
    return handleRpc(p, message, (d, ctx) => this.connectors.get(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.connectors.update')
  update(@Payload() message: unknown) {
    const p = 'catalog.connectors.update';
    return handleRpc(p, message, (d, ctx) => this.connectors.update(ctx.tenant_id, d.id, d.body, d.if_match), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.connectors.delete')
  delete(@Payload() message: unknown) {
    const p = 'catalog.connectors.delete';
    return handleRpc(p, message, (d, ctx) => this.connectors.delete(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.connectors.test')
  test(@Payload() message: unknown) {
    const p = 'catalog.connectors.test';
    return handleRpc(p, message, (d, ctx) => this.connectors.test(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.connector-types.list')
  types(@Payload() message: unknown) {
    const p = 'catalog.connector-types.list';
    return handleRpc<typeof p, ConnectorTypeList>(p, message, async () => this.connectors.types(), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.connectors.resolve')
  resolve(@Payload() message: unknown) {
    const p = 'catalog.connectors.resolve';
    return handleRpc(p, message, (d, ctx) => this.connectors.resolve(ctx.tenant_id, d.ids), reportUnexpected(this.logger, p));
  }
}
