import { Controller, Delete, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiKeyCreateSchema, apiKeyListQuerySchema, parseQueryOrThrow, tenantCreateSchema } from '@conduit/contracts';
import { principalOf } from '../access/principal-of.js';
import { RequireScope } from '../access/access.decorators.js';
import { LIST_QUERY, Operation } from '../openapi/operation.decorator.js';
import { ApiKeysService } from './api-keys.service.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';
import { idempotencyOf } from '../idempotency/request-idempotency.js';

@ApiTags('API keys')
@Controller('v2')
export class ApiKeysController {
  constructor(@Inject(ApiKeysService) private readonly keys: ApiKeysService) {}

  @IdempotentPost('api-keys')
  @RequireScope('admin')
  @Operation({
    summary: 'Create API Key',
    description: 'The key is in this answer only; the platform keeps a hash of it.',
    status: 201,
    body: apiKeyCreateSchema,
    errors: [413, 415, 422],
  })
  async create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const created = await this.keys.create(principalOf(req).tenant_id, req.body ?? {}, idempotencyOf(req));
    reply.header('location', `/v2/api-keys/${created.id}`);
    return created;
  }

  @Get('api-keys')
  @RequireScope('admin')
  @Operation({ summary: 'List API Keys', status: 200, query: LIST_QUERY })
  list(@Req() req: FastifyRequest) {
    return this.keys.list(principalOf(req).tenant_id, parseQueryOrThrow(apiKeyListQuerySchema, req.query ?? {}));
  }

  @Delete('api-keys/:key_id')
  @RequireScope('admin')
  @Operation({ summary: 'Revoke API Key', description: 'Takes effect at once.', status: 204, params: ['key_id'], errors: [404] })
  async revoke(@Param('key_id') id: string, @Req() req: FastifyRequest) {
    await this.keys.revoke(principalOf(req).tenant_id, id);
  }

  @IdempotentPost('tenants')
  @RequireScope('admin')
  @Operation({
    summary: 'Create Tenant',
    description: 'Operators only (admins of the bootstrap tenant): a new tenant and its first admin key.',
    status: 201,
    body: tenantCreateSchema,
    errors: [413, 415, 422],
  })
  createTenant(@Req() req: FastifyRequest) {
    return this.keys.createTenant(req.body ?? {}, principalOf(req), idempotencyOf(req));
  }
}
