import { Controller, Get, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { BackendClient } from '../forwarding/backend.client.js';
import { Operation } from '../openapi/operation.decorator.js';

/** The read-only catalogues: project templates and connector types. */
@Controller('v2')
export class CatalogueController {
  constructor(private readonly backend: BackendClient) {}

  @Get('templates')
  @Operation('listTemplates')
  async templates(@Req() req: FastifyRequest) {
    return (await this.backend.call('catalog.templates.list', {}, req)).data;
  }

  @Get('connector-types')
  @Operation('listConnectorTypes')
  async connectorTypes(@Req() req: FastifyRequest) {
    return (await this.backend.call('catalog.connector-types.list', {}, req)).data;
  }
}
