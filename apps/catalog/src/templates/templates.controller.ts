import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import type { Template } from '@conduit/contracts';
import { RpcRoute } from '@conduit/service-kit';
import { listTemplates } from './template-catalogue.js';
import { CATALOG_LOGGER } from '../common/tokens.js';

@Controller()
export class TemplatesController {
  constructor(@Inject(CATALOG_LOGGER) readonly logger: Logger) {}

  /** `{ data }` like connector types: a small fixed catalogue has no pages. */
  @RpcRoute('catalog.templates.list')
  list(): Promise<{ data: Template[] }> {
    return Promise.resolve({ data: listTemplates() });
  }
}
