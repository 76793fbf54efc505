import { Controller, Get, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { BackendClient } from '../forwarding/backend.client.js';
import { Operation } from '../openapi/operation.decorator.js';

/** The read-only catalogues: project templates and connector types. */
@ApiTags('Catalogues')
@Controller('v2')
export class CatalogueController {
  constructor(private readonly backend: BackendClient) {}

  @Get('templates')
  @Operation({ summary: 'List Templates', description: 'Templates a project can be created from.', status: 200 })
  async templates(@Req() req: FastifyRequest) {
    return (await this.backend.call('catalog.templates.list', {}, req)).data;
  }

  @Get('connector-types')
  @Operation({
    summary: 'List Connector Types',
    description: 'Each type with its category, the JSON Schema of its config (secret fields marked) and its node roles.',
    status: 200,
  })
  async connectorTypes(@Req() req: FastifyRequest) {
    return (await this.backend.call('catalog.connector-types.list', {}, req)).data;
  }
}
