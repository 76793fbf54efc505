import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { handleRpc, type Template } from '@conduit/contracts';
import { listTemplates } from './template-catalogue.js';
import { CATALOG_LOGGER } from '../common/tokens.js';
import { reportUnexpected } from '../common/unexpected-error.js';

@Controller()
export class TemplatesController {
  constructor(@Inject(CATALOG_LOGGER) private readonly logger: Logger) {}

  /** `{ data }` like connector types: a small fixed catalogue has no pages. */
  @MessagePattern('catalog.templates.list')
  list(@Payload() message: unknown) {
    const p = 'catalog.templates.list';
    return handleRpc<typeof p, { data: Template[] }>(p, message, async () => ({ data: listTemplates() }), reportUnexpected(this.logger, p));
  }
}
