import type { z } from 'zod';
import type { ErrorCode } from '@conduit/contracts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Tags of the document, in the order a reader meets them. */
export const TAGS = {
  Projects: 'Projects group pipelines and connectors; a project can be created from a template.',
  Pipelines:
    'Pipelines and their DAGs: every create and update validates; Validate Pipeline reports every problem at once.',
  Connectors: 'Connections to databases, files, object stores, APIs, queues and models; secrets are never answered.',
  Catalogues: 'Read-only catalogues: project templates and connector types with the JSON Schema of their config.',
  Jobs: 'Jobs run a pipeline by hand or on a cron schedule in a time zone.',
  Runs: 'Runs of a job: trigger, follow node by node, cancel.',
  Monitoring: 'Metrics of runs, alerts on failing jobs, and run logs (paged or streamed live).',
  Webhooks: 'Standard Webhooks deliveries of job and alert events, with their attempts.',
  'API keys': 'API keys of the tenant (admin scope), and tenants (operators).',
  Operations: 'Liveness and readiness for load balancers and orchestrators; public.',
} as const;
export type Tag = keyof typeof TAGS;

/** Response headers an operation's success answer carries besides X-Request-Id and the rate-limit headers. */
export type SuccessHeader = 'Location' | 'ETag';

/** One request or response example: a name, a summary and the value. */
export interface NamedExample {
  summary: string;
  value: unknown;
}

/**
 * One operation of the public API, declared once: the OpenAPI document is generated from these, and the gateway's
 * routes take their status code and what input they accept (RouteInputGuard) from the same declaration.
 */
export interface OperationSpec {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path, e.g. `/v2/jobs/{job_id}/runs`. */
  path: string;
  tag: Tag;
  summary: string;
  description: string;
  status: 200 | 201 | 202 | 204;
  /** Path parameters as a zod object (their names are the path's `{...}`). */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers the operation reads besides the credential (Idempotency-Key and If-Match are added by kind). */
  headerParams?: z.ZodType[];
  body?: { schema: z.ZodType; required: boolean; examples: Record<string, NamedExample> };
  /** Absent for a 204. */
  response?: { schema: z.ZodType; description: string; examples: Record<string, NamedExample> };
  /** Extra media types of the success answer (the log stream's `text/event-stream`). */
  alsoAnswers?: Record<string, { schema: Record<string, unknown>; example: string }>;
  headers?: SuccessHeader[];
  /** Answers besides the success and the problems (readiness's 503 with its report). */
  otherResponses?: Record<number, { schema: z.ZodType; description: string; example: unknown }>;
  /** Problem codes beyond the ones every operation of its kind may answer (see problems.ts). */
  errors?: ErrorCode[];
  /** Public: no credential, not counted by the rate limiter, not under /v2. */
  public?: boolean;
}
