// Response headers and request header parameters, as the gateway really sends and reads them.
import { z } from 'zod';

const header = (description: string, schema: Record<string, unknown>, example: string | number, required = false) => ({
  description,
  required,
  schema,
  example,
});

/** `components.headers`, by the name the header has on the wire. */
export const RESPONSE_HEADERS = {
  'X-Request-Id': header(
    "On every answer: the client's own when it sent a sane one, else one the gateway made.",
    { type: 'string' },
    'req_01JD3VH8J9KMNPQRSTVWXYZ012',
    true,
  ),
  'RateLimit-Policy': header(
    "The credential's quota (IETF ratelimit-headers draft): requests `q` per window `w` seconds. Absent while the limiter cannot count.",
    { type: 'string' },
    '"default";q=600;w=60',
  ),
  RateLimit: header(
    'What remains: `r` requests, full again in `t` seconds.',
    { type: 'string' },
    '"default";r=599;t=1',
  ),
  'Retry-After': header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }, 5, true),
  'WWW-Authenticate': header(
    'The credentials the API takes; after a refused bearer token, with `error="invalid_token"` and an `error_description`.',
    { type: 'string' },
    'Bearer realm="conduit", ApiKey header="X-API-Key"',
    true,
  ),
  Location: header(
    'The path of the resource made.',
    { type: 'string' },
    '/v2/projects/prj_01JD3V6Y9ZQ8W1S3X5C7E9G2HK',
    true,
  ),
  ETag: header(
    'The version of the resource; send it as `If-Match` to update or delete only that version.',
    { type: 'string' },
    '"3"',
  ),
  'Idempotent-Replayed': header(
    '`true` when this answer replays the first one made with the same Idempotency-Key.',
    { type: 'string', enum: ['true'] },
    'true',
  ),
} as const;
export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

export const headerRef = (name: ResponseHeaderName) => ({ $ref: `#/components/headers/${name}` });

/** `Idempotency-Key` of every POST. */
export const idempotencyKeyParam = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/)
  .optional()
  .meta({
    param: {
      id: 'IdempotencyKey',
      in: 'header',
      name: 'Idempotency-Key',
      description:
        'The same key with the same body within 24 hours replays the first answer (`Idempotent-Replayed: true`) ' +
        'without a second effect; with another body it is a 422 `idempotency_key_reused`; while the first request ' +
        'runs, a 409 `idempotency_in_progress` with Retry-After. Keys are per credential. 1-255 visible ASCII characters.',
      example: '5b0f4c1e-7d7a-4d63-9a0e-2f7f3c0c1a11',
    },
  });

/** `If-Match` of every update or delete of a resource that has an ETag. */
export const ifMatchParam = z
  .string()
  .min(1)
  .optional()
  .meta({
    param: {
      id: 'IfMatch',
      in: 'header',
      name: 'If-Match',
      description:
        'Update or delete only if the resource still has this ETag (412 `precondition_failed` otherwise); `*` matches any.',
      example: '"3"',
    },
  });

/** `Last-Event-ID` of a reconnecting log stream. */
export const lastEventIdParam = z
  .string()
  .regex(/^\s*\d+\s*$/)
  .optional()
  .meta({
    param: {
      id: 'LastEventId',
      in: 'header',
      name: 'Last-Event-ID',
      description:
        'With `Accept: text/event-stream`: resume after this log line (`seq`), as an EventSource reconnect sends it.',
      example: '42',
    },
  });
