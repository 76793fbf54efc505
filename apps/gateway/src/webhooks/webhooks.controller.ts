import { Controller, Delete, Get, Inject, Param, Patch, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { deliveryListQuerySchema, parseQueryOrThrow, webhookCreateSchema, webhookListQuerySchema, webhookUpdateSchema } from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { ResourceForwarder } from '../forwarding/resource-forwarder.js';
import { LIST_QUERY, Operation } from '../openapi/operation.decorator.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';
import { SecretBox } from '@conduit/secrets';
import { webhookSecretSealer } from '../forwarding/transit-secrets.js';
import { GATEWAY_CONFIG } from '../tokens.js';
import type { GatewayConfig } from '../config.js';

const EVENTS_DOC =
  'Event kinds: job.started, job.completed, job.failed, job.canceled, alert.opened, alert.resolved. Each delivery ' +
  'follows the Standard Webhooks specification (headers webhook-id, webhook-timestamp, webhook-signature); the key ' +
  'is the secret\'s UTF-8 bytes, or the base64 after a `whsec_` prefix. The secret (16-256 characters) is never answered.';

/** Webhooks and their deliveries, forwarded to the webhook dispatcher. */
@ApiTags('Webhooks')
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
  @Operation({ summary: 'List Webhooks', status: 200, query: LIST_QUERY })
  list(@Req() req: FastifyRequest) {
    return this.webhooks.list(req);
  }

  @IdempotentPost()
  @Operation({
    summary: 'Create Webhook',
    description:
      `${EVENTS_DOC} The url must be https, and its host must not resolve to a loopback, private, link-local or ` +
      'metadata address (422 `url_not_allowed` on `url`), unless the operator allowed it.',
    status: 201,
    body: webhookCreateSchema,
    errors: [413, 415, 422],
  })
  create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.webhooks.create(req, reply);
  }

  @Get(':webhook_id')
  @Operation({ summary: 'Get Webhook', status: 200, params: ['webhook_id'], errors: [404] })
  get(@Param('webhook_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.webhooks.get(id, req, reply);
  }

  @Patch(':webhook_id')
  @Operation({
    summary: 'Update Webhook',
    description:
      'Changes only the fields sent. `status: active` re-enables a disabled webhook (and forgets its failures); ' +
      '`status: disabled` stops deliveries. Honours If-Match.',
    status: 200,
    body: webhookUpdateSchema,
    params: ['webhook_id'],
    errors: [404, 412, 413, 415, 422],
  })
  update(@Param('webhook_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.webhooks.update(id, req, reply);
  }

  @Delete(':webhook_id')
  @Operation({ summary: 'Delete Webhook', description: 'Deletes the webhook and its deliveries.', status: 204, params: ['webhook_id'], errors: [404] })
  async remove(@Param('webhook_id') id: string, @Req() req: FastifyRequest) {
    await this.webhooks.remove(id, req);
  }

  @Get(':webhook_id/deliveries')
  @Operation({
    summary: 'List Deliveries',
    description:
      'Every attempt, newest first: event, attempt number, status (`pending`, `succeeded`, `failed`), status code, ' +
      'latency, error and, for a failed attempt that will be retried, `next_retry_at`.',
    status: 200,
    params: ['webhook_id'],
    query: { ...LIST_QUERY, status: 'pending, succeeded or failed' },
    errors: [404],
  })
  async deliveries(@Param('webhook_id') id: string, @Req() req: FastifyRequest) {
    const webhookId = this.webhooks.checkId(id);
    const query = parseQueryOrThrow(deliveryListQuerySchema, req.query ?? {});
    return (await this.backend.call('webhooks.deliveries.list', { webhook_id: webhookId, query }, req)).data;
  }

  @IdempotentPost(':webhook_id/test')
  @Operation({
    summary: 'Test Webhook',
    description:
      'Sends a `ping` event (`{ id, type: "ping", created_at, data: { webhook_id } }`) through the normal delivery ' +
      'path, retries included. Answers its first attempt, still `pending`; its outcome shows in the deliveries.',
    status: 202,
    params: ['webhook_id'],
    errors: [404],
  })
  test(@Param('webhook_id') id: string, @Req() req: FastifyRequest) {
    return this.webhooks.action('test', id, req);
  }
}
