import { Controller, Delete, Get, Inject, Param, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS, connectorCreateSchema, connectorListQuerySchema, connectorUpdateSchema } from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { Operation } from '../openapi/operation.decorator.js';
import { ResourceForwarder } from '../forwarding/resource-forwarder.js';
import { PROJECT_REFERENCE } from '../forwarding/reference-checks.js';
import { CONNECTOR_CONFIG } from '../forwarding/nested-checks.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';
import { SecretBox } from '@conduit/secrets';
import { connectorConfigSealer } from '../forwarding/transit-secrets.js';
import { GATEWAY_CONFIG } from '../tokens.js';
import type { GatewayConfig } from '../config.js';

/**
 * Test Connection may take its whole 10 s budget (a server that accepts and never answers): the gateway waits for
 * that and the catalog's bookkeeping around it, rather than answering 503 after RPC_TIMEOUT_MS for a test that runs on.
 */
const TEST_CONNECTION_RPC_TIMEOUT_MS = LIMITS.testConnectionMs + 5_000;

@Controller('v2/connectors')
export class ConnectorsController {
  private readonly connectors: ResourceForwarder;

  constructor(backend: BackendClient, @Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.connectors = new ResourceForwarder(backend, {
      kind: 'connector',
      path: '/v2/connectors',
      noun: 'connector',
      create: connectorCreateSchema,
      update: connectorUpdateSchema,
      listQuery: connectorListQuerySchema,
      rpc: 'catalog.connectors',
      references: [PROJECT_REFERENCE],
      nested: CONNECTOR_CONFIG,
      seal: connectorConfigSealer(new SecretBox(config.SECRETS_KEY)),
    });
  }

  @Get()
  @Operation('listConnectors')
  list(@Req() req: FastifyRequest) {
    return this.connectors.list(req);
  }

  @IdempotentPost()
  @Operation('createConnector')
  create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.connectors.create(req, reply);
  }

  @Get(':connector_id')
  @Operation('getConnector')
  get(@Param('connector_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.connectors.get(id, req, reply);
  }

  @Put(':connector_id')
  @Operation('updateConnector')
  update(
    @Param('connector_id') id: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.connectors.update(id, req, reply);
  }

  @Delete(':connector_id')
  @Operation('deleteConnector')
  async remove(@Param('connector_id') id: string, @Req() req: FastifyRequest) {
    await this.connectors.remove(id, req);
  }

  @IdempotentPost(':connector_id/test')
  @Operation('testConnector')
  test(@Param('connector_id') id: string, @Req() req: FastifyRequest) {
    return this.connectors.action('test', id, req, { timeoutMs: TEST_CONNECTION_RPC_TIMEOUT_MS });
  }
}
