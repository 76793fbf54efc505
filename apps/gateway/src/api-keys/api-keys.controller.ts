import { Controller, Delete, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiKeyListQuerySchema, parseQueryOrThrow } from '@conduit/contracts';
import { principalOf } from '../access/principal-of.js';
import { RequireScope } from '../access/access.decorators.js';
import { Operation } from '../openapi/operation.decorator.js';
import { ApiKeysService } from './api-keys.service.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';
import { idempotencyOf } from '../idempotency/request-idempotency.js';

@Controller('v2')
export class ApiKeysController {
  constructor(@Inject(ApiKeysService) private readonly keys: ApiKeysService) {}

  @IdempotentPost('api-keys')
  @RequireScope('admin')
  @Operation('createApiKey')
  async create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const created = await this.keys.create(principalOf(req).tenant_id, req.body ?? {}, idempotencyOf(req));
    reply.header('location', `/v2/api-keys/${created.id}`);
    return created;
  }

  @Get('api-keys')
  @RequireScope('admin')
  @Operation('listApiKeys')
  list(@Req() req: FastifyRequest) {
    return this.keys.list(principalOf(req).tenant_id, parseQueryOrThrow(apiKeyListQuerySchema, req.query ?? {}));
  }

  @Get('api-keys/:key_id')
  @RequireScope('admin')
  @Operation('getApiKey')
  get(@Param('key_id') id: string, @Req() req: FastifyRequest) {
    return this.keys.get(principalOf(req).tenant_id, id);
  }

  @Delete('api-keys/:key_id')
  @RequireScope('admin')
  @Operation('revokeApiKey')
  async revoke(@Param('key_id') id: string, @Req() req: FastifyRequest) {
    await this.keys.revoke(principalOf(req).tenant_id, id);
  }

  @Get('whoami')
  @RequireScope('read')
  @Operation('getWhoAmI')
  whoAmI(@Req() req: FastifyRequest) {
    return this.keys.whoAmI(principalOf(req));
  }

  @IdempotentPost('tenants')
  @RequireScope('admin')
  @Operation('createTenant')
  async createTenant(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const created = await this.keys.createTenant(req.body ?? {}, principalOf(req), idempotencyOf(req));
    reply.header('location', `/v2/tenants/${created.tenant.id}`);
    return created;
  }

  @Get('tenants/:tenant_id')
  @RequireScope('admin')
  @Operation('getTenant')
  getTenant(@Param('tenant_id') id: string, @Req() req: FastifyRequest) {
    return this.keys.getTenant(id, principalOf(req));
  }
}
