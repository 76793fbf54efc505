// Connectors and their tests.
import {
  connectionTestResultSchema,
  connectorListQuerySchema,
  connectorPageSchema,
  connectorSchema,
} from '@conduit/contracts';
import type { OperationSpec } from '../operation-spec.js';
import { connectorCreateBody, connectorUpdateBody } from '../connector-configs.js';
import { exampleConnector } from '../examples.js';
import { idParams, one, page } from './common.js';

const connectorId = idParams({ connector_id: 'connector' });

const createBody = {
  name: 'shop-db',
  type: 'postgres',
  project_id: exampleConnector.project_id,
  config: {
    host: 'shop-db.internal',
    database: 'shop',
    user: 'conduit_reader',
    password: 'correct-horse-battery-staple',
    ssl: 'require',
  },
};

export const connectorOperations: OperationSpec[] = [
  {
    operationId: 'listConnectors',
    method: 'get',
    path: '/v2/connectors',
    tag: 'Connectors',
    status: 200,
    summary: 'List Connectors',
    description: "The tenant's connectors, newest first; filter by `project_id` and `type`.",
    query: connectorListQuerySchema,
    response: {
      schema: connectorPageSchema,
      description: 'A page of connectors.',
      examples: one('One page', page([exampleConnector])),
    },
  },
  {
    operationId: 'createConnector',
    method: 'post',
    path: '/v2/connectors',
    tag: 'Connectors',
    status: 201,
    headers: ['Location', 'ETag'],
    summary: 'Create Connector',
    description:
      'The config is validated against the JSON Schema of its type (GET /v2/connector-types). Secret fields are encrypted ' +
      'at rest and always answered as `********`.',
    body: { schema: connectorCreateBody, required: true, examples: one('A PostgreSQL database', createBody) },
    response: {
      schema: connectorSchema,
      description: 'The connector, secrets masked.',
      examples: one('The connector', { ...exampleConnector, status: 'untested', last_test: null }),
    },
    errors: ['name_taken', 'unknown_project'],
  },
  {
    operationId: 'getConnector',
    method: 'get',
    path: '/v2/connectors/{connector_id}',
    tag: 'Connectors',
    status: 200,
    headers: ['ETag'],
    summary: 'Get Connector',
    description: 'One connector, secrets masked, with its last test.',
    params: connectorId,
    response: {
      schema: connectorSchema,
      description: 'The connector.',
      examples: one('The connector', exampleConnector),
    },
  },
  {
    operationId: 'updateConnector',
    method: 'put',
    path: '/v2/connectors/{connector_id}',
    tag: 'Connectors',
    status: 200,
    headers: ['ETag'],
    summary: 'Update Connector',
    description:
      'Replaces name, config and project_id; `type` may be repeated but not changed. A secret sent as `********` keeps its ' +
      "stored value, unless a field that says where the connector connects (its type's `location_fields`) changes: then " +
      'every stored secret must be sent again (422 `secret_required` naming each). Changing the config makes it `untested`. ' +
      'Honours If-Match.',
    params: connectorId,
    body: {
      schema: connectorUpdateBody,
      required: true,
      examples: one('Another database, same password', {
        ...createBody,
        config: { ...createBody.config, database: 'shop_eu', password: '********' },
      }),
    },
    response: {
      schema: connectorSchema,
      description: 'The connector as updated.',
      examples: one('The connector', {
        ...exampleConnector,
        status: 'untested',
        last_test: null,
        config: { ...exampleConnector.config, database: 'shop_eu' },
      }),
    },
    errors: ['name_taken', 'unknown_project', 'precondition_failed'],
  },
  {
    operationId: 'deleteConnector',
    method: 'delete',
    path: '/v2/connectors/{connector_id}',
    tag: 'Connectors',
    status: 204,
    summary: 'Delete Connector',
    description: 'Pipelines that use it become `invalid` at their next validation.',
    params: connectorId,
    errors: ['precondition_failed'],
  },
  {
    operationId: 'testConnector',
    method: 'post',
    path: '/v2/connectors/{connector_id}/test',
    tag: 'Connectors',
    status: 200,
    summary: 'Test Connection',
    description:
      'Really connects, within 10 s, step by step (resolve, connect, authenticate, read access...). A failed test is still ' +
      'a 200: see `ok`, `checks` and `error_class`.',
    params: connectorId,
    response: {
      schema: connectionTestResultSchema,
      description: "The test's result, also kept as the connector's `last_test`.",
      examples: {
        example: { summary: 'Passed', value: exampleConnector.last_test },
        failed: {
          summary: 'Failed at authentication',
          value: {
            ok: false,
            latency_ms: 21,
            message: 'password authentication failed for user "conduit_reader"',
            error_class: 'config_error',
            checks: [
              { name: 'resolve', ok: true, latency_ms: 2, message: 'shop-db.internal -> 10.0.4.12' },
              { name: 'connect', ok: true, latency_ms: 10, message: 'TCP connection established' },
              {
                name: 'authenticate',
                ok: false,
                latency_ms: 9,
                message: 'password authentication failed for user "conduit_reader"',
              },
            ],
            details: {},
            tested_at: '2026-11-22T10:15:02.417Z',
          },
        },
      },
    },
  },
];
