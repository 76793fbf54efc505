// API keys and tenants (admin scope), and the public health endpoints.
import {
  EXAMPLE_IDS,
  apiKeyCreateSchema,
  apiKeyListQuerySchema,
  apiKeyPageSchema,
  apiKeySchema,
  createdApiKeySchema,
  createdTenantSchema,
  tenantSchema,
  healthSchema,
  readinessSchema,
  tenantCreateSchema,
  whoAmISchema,
} from '@conduit/contracts';
import type { OperationSpec } from '../operation-spec.js';
import { idParams, one, page } from './common.js';

const apiKey = {
  id: EXAMPLE_IDS.apiKey,
  name: 'ci-deployer',
  scopes: ['read', 'write'],
  prefix: 'cnd_3kQ9',
  rate_limit_per_minute: null,
  created_at: '2026-11-22T10:15:00.000Z',
  last_used_at: null,
};
const createdKey = { ...apiKey, key: 'cnd_3kQ9vX2mT8pL5wR1yB7nH4cJ6dF0gS' };

export const accessOperations: OperationSpec[] = [
  {
    operationId: 'createApiKey',
    method: 'post',
    path: '/v2/api-keys',
    tag: 'API keys',
    status: 201,
    headers: ['Location'],
    summary: 'Create API Key',
    description: 'Admin scope. The key is in this answer only; the platform keeps a hash of it.',
    body: {
      schema: apiKeyCreateSchema,
      required: true,
      examples: one('A key for CI', { name: 'ci-deployer', scopes: ['read', 'write'] }),
    },
    response: {
      schema: createdApiKeySchema,
      description: 'The key, shown once.',
      examples: one('The key', createdKey),
    },
  },
  {
    operationId: 'listApiKeys',
    method: 'get',
    path: '/v2/api-keys',
    tag: 'API keys',
    status: 200,
    summary: 'List API Keys',
    description: "Admin scope. The tenant's keys, newest first, without the keys themselves.",
    query: apiKeyListQuerySchema,
    response: {
      schema: apiKeyPageSchema,
      description: 'A page of API keys.',
      examples: one('One page', page([apiKey])),
    },
  },
  {
    operationId: 'getApiKey',
    method: 'get',
    path: '/v2/api-keys/{key_id}',
    tag: 'API keys',
    status: 200,
    summary: 'Get API Key',
    description: "Admin scope. A live key of the tenant (the create's `Location`), without the key itself.",
    params: idParams({ key_id: 'apiKey' }),
    response: { schema: apiKeySchema, description: 'The API key.', examples: one('A key', apiKey) },
  },
  {
    operationId: 'revokeApiKey',
    method: 'delete',
    path: '/v2/api-keys/{key_id}',
    tag: 'API keys',
    status: 204,
    summary: 'Revoke API Key',
    description: 'Admin scope. Takes effect at once, on every gateway replica.',
    params: idParams({ key_id: 'apiKey' }),
  },
  {
    operationId: 'createTenant',
    method: 'post',
    path: '/v2/tenants',
    tag: 'API keys',
    status: 201,
    summary: 'Create Tenant',
    description: 'Operators only (admins of the bootstrap tenant): a new tenant and its first admin key.',
    body: { schema: tenantCreateSchema, required: true, examples: one('A new tenant', { name: 'Acme Corp' }) },
    response: {
      schema: createdTenantSchema,
      description: 'The tenant and its first admin key, shown once.',
      examples: one('The tenant', {
        tenant: { id: EXAMPLE_IDS.tenant, name: 'Acme Corp', created_at: '2026-11-22T10:15:00.000Z' },
        api_key: { ...createdKey, name: 'admin', scopes: ['admin'] },
      }),
    },
  },
  {
    operationId: 'getTenant',
    method: 'get',
    path: '/v2/tenants/{tenant_id}',
    tag: 'API keys',
    status: 200,
    summary: 'Get Tenant',
    description:
      "Admin scope. A tenant (the create's `Location`): operators read any tenant, another tenant's admins their own.",
    params: idParams({ tenant_id: 'tenant' }),
    response: {
      schema: tenantSchema,
      description: 'The tenant.',
      examples: one('The tenant', {
        id: EXAMPLE_IDS.tenant,
        name: 'Acme Corp',
        created_at: '2026-11-22T10:15:00.000Z',
      }),
    },
  },
  {
    operationId: 'getWhoAmI',
    method: 'get',
    path: '/v2/whoami',
    tag: 'API keys',
    status: 200,
    summary: 'Who Am I',
    description:
      'The tenant (with its name) and the credential of this request, for a client to show whom it acts as. Read scope.',
    response: {
      schema: whoAmISchema,
      description: 'The caller.',
      examples: one('An API key', {
        tenant: { id: EXAMPLE_IDS.tenant, name: 'Acme Corp' },
        credential: { kind: 'api_key', id: EXAMPLE_IDS.apiKey, scopes: ['read', 'write'] },
      }),
    },
  },
  {
    operationId: 'getHealth',
    method: 'get',
    path: '/healthz',
    tag: 'Operations',
    status: 200,
    public: true,
    summary: 'Liveness',
    description: 'The process answers. Consults no dependency, so an outage never restarts a pod.',
    response: { schema: healthSchema, description: 'Alive.', examples: one('Alive', { status: 'ok' }) },
  },
  {
    operationId: 'getReadiness',
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    status: 200,
    public: true,
    summary: 'Readiness',
    description:
      'Whether the gateway can serve: 200 or 503 with the same body, each dependency by name. Never a problem document.',
    response: {
      schema: readinessSchema,
      description: 'Ready.',
      examples: one('Ready', { status: 'ok', checks: { db: 'ok', redis: 'ok' } }),
    },
    otherResponses: {
      503: {
        schema: readinessSchema,
        description: 'Not ready: the checks say which dependency is down.',
        example: { status: 'unavailable', checks: { db: 'ok', redis: 'error: connect ECONNREFUSED' } },
      },
    },
  },
];
