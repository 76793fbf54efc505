// Answers of the webhook and access operations: webhooks, deliveries, API keys and tenants.
import { z } from 'zod';
import { SCOPES } from '../schemas/common.js';
import { WEBHOOK_EVENT_TYPES } from '../events.js';
import { idOf, pageOfSchema, timestamp } from './fields.js';

export const webhookSchema = z
  .strictObject({
    id: idOf('webhook'),
    url: z.string().meta({ example: 'https://hooks.example.org/conduit' }),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    description: z.string().nullable(),
    status: z.enum(['active', 'disabled']),
    disabled_reason: z
      .string()
      .nullable()
      .meta({ description: '`gone` (the receiver answered 410), `failing` (5 days of failures) or `manual`.' }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Webhook', description: 'The secret is never answered.' });

export const deliverySchema = z
  .strictObject({
    id: idOf('delivery'),
    webhook_id: idOf('webhook'),
    event_id: idOf('event'),
    event_type: z.string().meta({ example: 'job.failed' }),
    attempt: z.number().int().min(1),
    status: z.enum(['pending', 'succeeded', 'failed']),
    status_code: z.number().int().nullable(),
    latency_ms: z.number().min(0).nullable(),
    error: z.string().nullable(),
    next_retry_at: timestamp.nullable().meta({ description: 'For a failed attempt that will be retried.' }),
    created_at: timestamp,
  })
  .meta({ id: 'Delivery', description: 'One attempt to deliver one event to one webhook.' });

export const apiKeySchema = z
  .strictObject({
    id: idOf('apiKey'),
    name: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    prefix: z.string().meta({ description: 'The first characters of the key, to recognise it.', example: 'cnd_3kQ9' }),
    rate_limit_per_minute: z.number().int().min(1).nullable(),
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKeySchema = z
  .strictObject({
    ...apiKeySchema.shape,
    key: z
      .string()
      .meta({ description: 'The key itself, in this answer only.', example: 'cnd_3kQ9vX2mT8pL5wR1yB7nH4cJ6dF0gS' }),
  })
  .meta({ id: 'CreatedApiKey' });

export const tenantSchema = z
  .strictObject({ id: idOf('tenant'), name: z.string(), created_at: timestamp })
  .meta({ id: 'Tenant' });

export const createdTenantSchema = z
  .strictObject({ tenant: tenantSchema, api_key: createdApiKeySchema })
  .meta({ id: 'CreatedTenant', description: 'The new tenant and its first admin key.' });

export const webhookPageSchema = pageOfSchema(webhookSchema, 'WebhookPage');
export const deliveryPageSchema = pageOfSchema(deliverySchema, 'DeliveryPage');
export const apiKeyPageSchema = pageOfSchema(apiKeySchema, 'ApiKeyPage');

export const whoAmISchema = z
  .strictObject({
    tenant: z.strictObject({
      id: z.string().meta({ example: 'tnt_01JD3VG7H8J9KMNPQRSTVWXYZ0' }),
      name: z
        .string()
        .nullable()
        .meta({ description: 'Null for a tenant that only bearer tokens name (none was created with a name).' }),
    }),
    credential: z.strictObject({
      kind: z.enum(['api_key', 'jwt']),
      id: z.string().meta({
        description:
          'The API key id (`key_...`), or for a bearer token `jwt:<tenant>:<sub>` (both percent-encoded; `#` and a hash of the token for one without `sub`).',
      }),
      scopes: z.array(z.enum(SCOPES)).meta({ description: 'As granted (write implies read, admin everything).' }),
    }),
  })
  .meta({ id: 'WhoAmI', description: 'The tenant and the credential a request is made as.' });
export type WhoAmI = z.output<typeof whoAmISchema>;
