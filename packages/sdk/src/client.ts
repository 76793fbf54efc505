// createConduitClient: the typed client (openapi-fetch over the generated `paths`) behind resource helpers.
import createClient, { type Client } from 'openapi-fetch';
import { API_VERSION } from './generated/api-version.js';
import type { paths } from './generated/api.js';
import { ConnectorsApi } from './resources/connectors.js';
import { JobsApi } from './resources/jobs.js';
import { MonitoringApi } from './resources/monitoring.js';
import { PipelinesApi } from './resources/pipelines.js';
import { ProjectsApi } from './resources/projects.js';
import { RunsApi, type WaitForRunOptions } from './resources/runs.js';
import { WebhooksApi } from './resources/webhooks.js';
import { retryPolicy, type RetryOptions } from './retry.js';
import { createTransport, type Credentials, type RetryInfo } from './transport.js';
import type { Run } from './types.js';

export interface ConduitClientOptions {
  /** The gateway, e.g. `http://127.0.0.1:3000` (paths start with /v2). */
  baseUrl: string;
  /** An API key (`cnd_...`), sent as X-API-Key. */
  apiKey?: string;
  /** A bearer token (JWT); give this or `apiKey`, not both. */
  token?: string;
  /** Retries on 429/503 (Retry-After honoured); see RetryOptions for the defaults. */
  retry?: RetryOptions;
  /** An Idempotency-Key on every POST that has none (the same on its retries). Default true. */
  idempotencyKeys?: boolean;
  /** Default `conduit-sdk/<api version>`. */
  userAgent?: string;
  /** The fetch underneath. Default globalThis.fetch. */
  fetch?: typeof fetch;
  /** Told before each retry's wait. */
  onRetry?: (info: RetryInfo) => void;
}

function credentialsOf(options: ConduitClientOptions): Credentials | undefined {
  if (options.apiKey !== undefined && options.token !== undefined)
    throw new TypeError('give apiKey or token, not both');
  if (options.apiKey !== undefined) return { apiKey: options.apiKey };
  if (options.token !== undefined) return { token: options.token };
  return undefined;
}

export class ConduitClient {
  /** The typed openapi-fetch client, for any operation the helpers do not cover: `client.raw.GET('/v2/metrics', ...)`. */
  readonly raw: Client<paths>;
  readonly projects: ProjectsApi;
  readonly pipelines: PipelinesApi;
  readonly connectors: ConnectorsApi;
  readonly jobs: JobsApi;
  readonly runs: RunsApi;
  readonly webhooks: WebhooksApi;
  /** Metrics and alerts. */
  readonly monitoring: MonitoringApi;
  readonly baseUrl: string;

  constructor(options: ConduitClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const transport = createTransport({
      credentials: credentialsOf(options),
      retry: retryPolicy(options.retry),
      idempotencyKeys: options.idempotencyKeys ?? true,
      userAgent: options.userAgent ?? `conduit-sdk/${API_VERSION}`,
      fetch: options.fetch ?? globalThis.fetch,
      onRetry: options.onRetry,
    });
    this.raw = createClient<paths>({ baseUrl: this.baseUrl, fetch: transport });
    this.projects = new ProjectsApi(this.raw);
    this.pipelines = new PipelinesApi(this.raw);
    this.connectors = new ConnectorsApi(this.raw);
    this.jobs = new JobsApi(this.raw);
    this.runs = new RunsApi(this.raw, this.jobs);
    this.webhooks = new WebhooksApi(this.raw);
    this.monitoring = new MonitoringApi(this.raw);
  }

  /** Polls the run until it has ended (succeeded, failed or canceled); see RunsApi.waitForRun. */
  waitForRun(runId: string, options: WaitForRunOptions = {}): Promise<Run> {
    return this.runs.waitForRun(runId, options);
  }
}

export function createConduitClient(options: ConduitClientOptions): ConduitClient {
  return new ConduitClient(options);
}
