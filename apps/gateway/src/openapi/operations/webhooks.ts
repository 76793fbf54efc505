// Webhooks and their deliveries.
import {
  EXAMPLE_IDS,
  deliveryListQuerySchema,
  deliveryPageSchema,
  deliverySchema,
  webhookCreateSchema,
  webhookListQuerySchema,
  webhookPageSchema,
  webhookSchema,
  webhookUpdateSchema,
} from '@conduit/contracts';
import type { OperationSpec } from '../operation-spec.js';
import { idParams, one, page } from './common.js';

const webhookId = idParams({ webhook_id: 'webhook' });

const EVENTS_DOC =
  'Event kinds: job.started, job.completed, job.failed, job.canceled, alert.opened, alert.resolved. Each delivery ' +
  'follows the Standard Webhooks specification (headers webhook-id, webhook-timestamp, webhook-signature); the key ' +
  "is the secret's UTF-8 bytes, or the base64 after a `whsec_` prefix. The secret (16-256 characters) is never answered.";

const webhook = {
  id: EXAMPLE_IDS.webhook,
  url: 'https://hooks.example.org/conduit',
  events: ['job.failed', 'alert.opened'],
  description: 'On-call channel',
  status: 'active',
  disabled_reason: null,
  created_at: '2026-11-22T10:15:00.000Z',
  updated_at: '2026-11-22T10:15:00.000Z',
};

const delivery = {
  id: EXAMPLE_IDS.delivery,
  webhook_id: EXAMPLE_IDS.webhook,
  event_id: EXAMPLE_IDS.event,
  event_type: 'job.failed',
  attempt: 2,
  status: 'failed',
  status_code: 502,
  latency_ms: 143,
  error: 'the receiver answered 502',
  next_retry_at: '2026-11-22T10:50:05.000Z',
  created_at: '2026-11-22T10:20:05.000Z',
};

export const webhookOperations: OperationSpec[] = [
  {
    operationId: 'listWebhooks',
    method: 'get',
    path: '/v2/webhooks',
    tag: 'Webhooks',
    status: 200,
    summary: 'List Webhooks',
    description: "The tenant's webhooks, newest first.",
    query: webhookListQuerySchema,
    response: {
      schema: webhookPageSchema,
      description: 'A page of webhooks.',
      examples: one('One page', page([webhook])),
    },
  },
  {
    operationId: 'createWebhook',
    method: 'post',
    path: '/v2/webhooks',
    tag: 'Webhooks',
    status: 201,
    headers: ['Location', 'ETag'],
    summary: 'Create Webhook',
    description:
      `${EVENTS_DOC} The url must be https, and its host must not resolve to a loopback, private, link-local or ` +
      'metadata address (422 `url_not_allowed` on `url`), unless the operator allowed it.',
    body: {
      schema: webhookCreateSchema,
      required: true,
      examples: one('Failures to the on-call channel', {
        url: webhook.url,
        events: webhook.events,
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        description: webhook.description,
      }),
    },
    response: { schema: webhookSchema, description: 'The webhook.', examples: one('The webhook', webhook) },
  },
  {
    operationId: 'getWebhook',
    method: 'get',
    path: '/v2/webhooks/{webhook_id}',
    tag: 'Webhooks',
    status: 200,
    headers: ['ETag'],
    summary: 'Get Webhook',
    description: 'One webhook; its secret is never answered.',
    params: webhookId,
    response: { schema: webhookSchema, description: 'The webhook.', examples: one('The webhook', webhook) },
  },
  {
    operationId: 'updateWebhook',
    method: 'patch',
    path: '/v2/webhooks/{webhook_id}',
    tag: 'Webhooks',
    status: 200,
    headers: ['ETag'],
    summary: 'Update Webhook',
    description:
      'Changes only the fields sent. `status: active` re-enables a disabled webhook (and forgets its failures); ' +
      '`status: disabled` stops deliveries. Honours If-Match.',
    params: webhookId,
    body: { schema: webhookUpdateSchema, required: true, examples: one('Re-enable', { status: 'active' }) },
    response: { schema: webhookSchema, description: 'The webhook as updated.', examples: one('The webhook', webhook) },
    errors: ['precondition_failed'],
  },
  {
    operationId: 'deleteWebhook',
    method: 'delete',
    path: '/v2/webhooks/{webhook_id}',
    tag: 'Webhooks',
    status: 204,
    summary: 'Delete Webhook',
    description: 'Deletes the webhook and its deliveries.',
    params: webhookId,
    errors: ['precondition_failed'],
  },
  {
    operationId: 'listDeliveries',
    method: 'get',
    path: '/v2/webhooks/{webhook_id}/deliveries',
    tag: 'Webhooks',
    status: 200,
    summary: 'List Deliveries',
    description:
      'Every attempt, newest first: event, attempt number, status, status code, latency, error and, for a failed attempt ' +
      'that will be retried, `next_retry_at`.',
    params: webhookId,
    query: deliveryListQuerySchema,
    response: {
      schema: deliveryPageSchema,
      description: 'A page of delivery attempts.',
      examples: one('One page', page([delivery])),
    },
  },
  {
    operationId: 'testWebhook',
    method: 'post',
    path: '/v2/webhooks/{webhook_id}/test',
    tag: 'Webhooks',
    status: 202,
    summary: 'Test Webhook',
    description:
      'Sends a `ping` event (`{ id, type: "ping", created_at, data: { webhook_id } }`) through the normal delivery path, ' +
      'retries included. Answers its first attempt, still `pending`; its outcome shows in the deliveries.',
    params: webhookId,
    response: {
      schema: deliverySchema,
      description: 'The first attempt, pending.',
      examples: one('Pending', {
        ...delivery,
        event_type: 'ping',
        attempt: 1,
        status: 'pending',
        status_code: null,
        latency_ms: null,
        error: null,
        next_retry_at: null,
      }),
    },
  },
];
