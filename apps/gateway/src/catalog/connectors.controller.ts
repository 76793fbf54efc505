import { Controller, Delete, Get, Inject, Param, Put, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS, connectorCreateSchema, connectorListQuerySchema, connectorUpdateSchema } from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { LIST_QUERY, Operation } from '../openapi/operation.decorator.js';
import { ResourceForwarder } from '../forwarding/resource-forwarder.js';
import { PROJECT_REFERENCE } from '../forwarding/reference-checks.js';
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

@ApiTags('Connectors')
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
      seal: connectorConfigSealer(new SecretBox(config.SECRETS_KEY)),
    });
  }

  @Get()
  @Operation({
    summary: 'List Connectors',
    status: 200,
    query: { ...LIST_QUERY, project_id: 'only this project', type: 'only this connector type' },
  })
  list(@Req() req: FastifyRequest) {
    return this.connectors.list(req);
  }

  @IdempotentPost()
  @Operation({
    summary: 'Create Connector',
    description:
      'The config is validated against the JSON Schema of its type (GET /v2/connector-types). Secret fields are ' +
      'encrypted at rest and always answered as "********".',
    status: 201,
    body: connectorCreateSchema,
    errors: [409, 413, 415, 422],
  })
  create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.connectors.create(req, reply);
  }

  @Get(':connector_id')
  @Operation({ summary: 'Get Connector', status: 200, params: ['connector_id'], errors: [404] })
  get(@Param('connector_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.connectors.get(id, req, reply);
  }

  @Put(':connector_id')
  @Operation({
    summary: 'Update Connector',
    description:
      'Replaces name, config and project_id; a secret sent as "********" keeps its stored value, unless a field that ' +
      'says where the connector connects (its type\'s location_fields) changes: then every stored secret must be sent ' +
      'again (422 `secret_required` naming each).',
    status: 200,
    body: connectorUpdateSchema,
    params: ['connector_id'],
    errors: [404, 409, 412, 413, 415, 422],
  })
  update(@Param('connector_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.connectors.update(id, req, reply);
  }

  @Delete(':connector_id')
  @Operation({ summary: 'Delete Connector', status: 204, params: ['connector_id'], errors: [404] })
  async remove(@Param('connector_id') id: string, @Req() req: FastifyRequest) {
    await this.connectors.remove(id, req);
  }

  @IdempotentPost(':connector_id/test')
  @Operation({
    summary: 'Test Connection',
    description:
      'Really connects, within 10 s, step by step. A failed test is still a 200: see `ok`, `checks` and `error_class`.',
    status: 200,
    params: ['connector_id'],
    errors: [404],
  })
  test(@Param('connector_id') id: string, @Req() req: FastifyRequest) {
    return this.connectors.action('test', id, req, { timeoutMs: TEST_CONNECTION_RPC_TIMEOUT_MS });
  }
}
