// The error answer of every operation (api.md "Errors"), and the public health answers.
import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';

const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export const fieldErrorSchema = z
  .strictObject({
    path: z.string().meta({ description: 'Into the body or query, e.g. `dag.nodes[2].config`.', example: 'schedule' }),
    code: z.string().meta({ example: 'invalid_cron' }),
    message: z.string(),
  })
  .meta({ id: 'FieldError' });

export const problemSchema = z
  .strictObject({
    type: z.string().meta({ example: '/problems/validation-failed' }),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    code: z.enum(ERROR_CODES).meta({ description: 'Stable; what a client branches on.' }),
    detail: z.string(),
    errors: z
      .array(fieldErrorSchema)
      .optional()
      .meta({ description: 'On a 422 (and some 400s): every field at fault, not just the first.' }),
    dependency: z.enum(['database', 'redis', 'service']).optional().meta({
      description: 'On a 503: which kind of dependency was unreachable (never its address).',
    }),
    instance: z.string().meta({ description: 'The request path.', example: '/v2/jobs' }),
    request_id: z.string().meta({ description: 'Ties the answer to the logs; also in `X-Request-Id`.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem document.' });

export const healthSchema = z.strictObject({ status: z.literal('ok') }).meta({ id: 'Health' });

export const readinessSchema = z
  .strictObject({
    status: z.enum(['ok', 'unavailable']),
    checks: z
      .record(z.string(), z.string())
      .meta({ description: '`ok` or `error: <reason>` per dependency.', example: { db: 'ok', redis: 'ok' } }),
  })
  .meta({ id: 'Readiness' });
