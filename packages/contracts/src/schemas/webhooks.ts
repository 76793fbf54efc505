import { z } from 'zod';
import { descriptionSchema } from './common.js';
import { pageQueryShape } from '../pagination.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../events.js';
import { urlCredentialProblem } from '../url-credentials.js';

/** Where a webhook's credential belongs instead of its URL (the gateway's and the dispatcher's refusals). */
export const WEBHOOK_URL_CREDENTIALS_HINT = 'the secret signs deliveries, the receiver checks the signature';

const eventsSchema = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length)
  .refine((e) => new Set(e).size === e.length, { message: 'events must be unique' });

/**
 * The URL's shape is checked here, so that it is listed beside the body's other faults: absolute, http or https,
 * with a host, and no credentials in it (user:password@, ?token=), which the gateway must not send on to the
 * dispatcher in clear. Whether plain http is allowed and where its host resolves are checked by the dispatcher, whose
 * network policy is configuration (its codes: url_scheme_not_allowed, url_not_allowed).
 */
const urlSchema = z
  .string()
  .min(1)
  .max(2048)
  .superRefine((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute URL', params: { code: 'invalid_url' } });
      return;
    }
    const credentials = urlCredentialProblem(url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      ctx.addIssue({ code: 'custom', message: 'must be an https URL', params: { code: 'url_scheme_not_allowed' } });
    } else if (credentials) {
      ctx.addIssue({
        code: 'custom',
        message: `${credentials}: ${WEBHOOK_URL_CREDENTIALS_HINT}`,
        params: { code: 'invalid_url' },
      });
    } else if (url.hostname === '') {
      ctx.addIssue({ code: 'custom', message: 'must name a host', params: { code: 'invalid_url' } });
    }
  });
const secretSchema = z.string().min(16).max(256);

export const webhookCreateSchema = z.strictObject({
  url: urlSchema,
  events: eventsSchema,
  secret: secretSchema,
  description: descriptionSchema.optional(),
});
export type WebhookCreate = z.infer<typeof webhookCreateSchema>;

/** PATCH: any subset; `status: active` re-enables a disabled webhook. */
export const webhookUpdateSchema = z.strictObject({
  url: urlSchema.optional(),
  events: eventsSchema.optional(),
  secret: secretSchema.optional(),
  description: descriptionSchema.optional(),
  status: z.enum(['active', 'disabled']).optional(),
});
export type WebhookUpdate = z.infer<typeof webhookUpdateSchema>;

export const webhookListQuerySchema = z.strictObject({ ...pageQueryShape });
export const deliveryListQuerySchema = z.strictObject({
  ...pageQueryShape,
  status: z.enum(['pending', 'succeeded', 'failed']).optional(),
});

export type WebhookStatus = 'active' | 'disabled';

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  status: WebhookStatus;
  /** Why it was disabled (`gone`: the receiver answered 410; `failing`: 5 days of failures; `manual`). */
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** One attempt to deliver one event to one webhook. */
export interface Delivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: 'pending' | 'succeeded' | 'failed';
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  next_retry_at: string | null;
  created_at: string;
}
