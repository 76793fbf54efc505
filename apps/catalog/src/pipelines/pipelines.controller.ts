import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { handleRpc } from '@conduit/contracts';
import { PipelinesService } from './pipelines.service.js';
import { CATALOG_LOGGER } from '../common/tokens.js';
import { reportUnexpected } from '../common/unexpected-error.js';

@Controller()
export class PipelinesController {
  constructor(
    private readonly pipelines: PipelinesService,
    @Inject(CATALOG_LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('catalog.pipelines.create')
  create(@Payload() message: unknown) {
    const p = 'catalog.pipelines.create';
    return handleRpc(p, message, (d, ctx) => this.pipelines.create(ctx.tenant_id, d.body), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.pipelines.list')
  list(@Payload() message: unknown) {
    const p = 'catalog.pipelines.list';
    return handleRpc(p, message, (d, ctx) => this.pipelines.list(ctx.tenant_id, d.query), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.pipelines.get')
  get(@Payload() message: unknown) {
    const p = 'catalog.pipelines.get';
    return handleRpc(p, message, (d, ctx) => this.pipelines.get(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.pipelines.update')
  update(@Payload() message: unknown) {
    const p = 'catalog.pipelines.update';
    return handleRpc(p, message, (d, ctx) => this.pipelines.update(ctx.tenant_id, d.id, d.body, d.if_match), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.pipelines.delete')
  delete(@Payload() message: unknown) {
    const p = 'catalog.pipelines.delete';
    return handleRpc(p, message, (d, ctx) => this.pipelines.delete(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.pipelines.validate')
  validate(@Payload() message: unknown) {
    const p = 'catalog.pipelines.validate';
    return handleRpc(p, message, (d, ctx) => this.pipelines.validate(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.pipelines.snapshot')
  snapshot(@Payload() message: unknown) {
    const p = 'catalog.pipelines.snapshot';
    return handleRpc(p, message, (d, ctx) => this.pipelines.snapshot(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }
}
