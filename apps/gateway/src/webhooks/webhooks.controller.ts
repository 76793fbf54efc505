import { Controller, Delete, Get, Inject, Param, Patch, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  deliveryListQuerySchema,
  parseQueryOrThrow,
  webhookCreateSchema,
  webhookListQuerySchema,
  webhookUpdateSchema,
} from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { ResourceForwarder } from '../forwarding/resource-forwarder.js';
import { Operation } from '../openapi/operation.decorator.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';
import { SecretBox } from '@conduit/secrets';
import { webhookSecretSealer } from '../forwarding/transit-secrets.js';
import { GATEWAY_CONFIG } from '../tokens.js';
import type { GatewayConfig } from '../config.js';

/** Webhooks and their deliveries, forwarded to the webhook dispatcher. */
@Controller('v2/webhooks')
export class WebhooksController {
  private readonly webhooks: ResourceForwarder;

  constructor(
    private readonly backend: BackendClient,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.webhooks = new ResourceForwarder(backend, {
      kind: 'webhook',
      path: '/v2/webhooks',
      noun: 'webhook',
      create: webhookCreateSchema,
      update: webhookUpdateSchema,
      listQuery: webhookListQuerySchema,
      rpc: 'webhooks.webhooks',
      seal: webhookSecretSealer(new SecretBox(config.SECRETS_KEY)),
    });
  }

  @Get()
  @Operation('listWebhooks')
  list(@Req() req: FastifyRequest) {
    return this.webhooks.list(req);
  }

  @IdempotentPost()
  @Operation('createWebhook')
  create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.webhooks.create(req, reply);
  }

  @Get(':webhook_id')
  @Operation('getWebhook')
  get(@Param('webhook_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.webhooks.get(id, req, reply);
  }

  @Patch(':webhook_id')
  @Operation('updateWebhook')
  update(@Param('webhook_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.webhooks.update(id, req, reply);
  }

  @Delete(':webhook_id')
  @Operation('deleteWebhook')
  async remove(@Param('webhook_id') id: string, @Req() req: FastifyRequest) {
    await this.webhooks.remove(id, req);
  }

  @Get(':webhook_id/deliveries')
  @Operation('listDeliveries')
  async deliveries(@Param('webhook_id') id: string, @Req() req: FastifyRequest) {
    const webhookId = this.webhooks.checkId(id);
    const query = parseQueryOrThrow(deliveryListQuerySchema, req.query ?? {});
    return (await this.backend.call('webhooks.deliveries.list', { webhook_id: webhookId, query }, req)).data;
  }

  @IdempotentPost(':webhook_id/test')
  @Operation('testWebhook')
  test(@Param('webhook_id') id: string, @Req() req: FastifyRequest) {
    return this.webhooks.action('test', id, req);
  }
}
