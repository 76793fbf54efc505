import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { freePort, linearDag, waitFor, type Stack } from '@conduit/testing';
import type { Page, Project, Run, RunNode } from '@conduit/contracts';
import { call, problemCode, type ApiResponse } from './client.js';

export { freePort, waitFor } from '@conduit/testing';

/** RFC 3339 UTC with milliseconds, as api.md wants every timestamp. */
export const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A name no other test (or earlier run) uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export interface TokenOptions {
  tenant_id: string;
  scope?: string;
  /** Seconds from now; negative for a token that has already expired. */
  expiresInS?: number;
  /** Signs with this secret instead of the stack's (a bad signature). */
  secret?: string;
}

/** A bearer JWT as the configured issuer would mint it (HS256, issuer/audience of the stack). */
export async function mintToken(stack: Stack, opts: TokenOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const exp = now + (opts.expiresInS ?? 600);
  return new SignJWT({ tenant_id: opts.tenant_id, scope: opts.scope ?? 'read write admin' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(stack.env.JWT_ISSUER ?? '')
    .setAudience(stack.env.JWT_AUDIENCE ?? '')
    .setIssuedAt(Math.min(now, exp - 60))
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(opts.secret ?? stack.jwtSecret));
}

/** Every item of a list operation, page by page (limit 200), failing on any non-200 page. */
export async function listAll<T extends { id: string }>(
  stack: Stack,
  path: string,
  opts: { key?: string; bearer?: string } = {},
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  do {
    const page: ApiResponse<{ data: T[]; next_cursor: string | null }> = await call(
      stack,
      'GET',
      `${path}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      opts,
    );
    if (page.status !== 200) throw new Error(`GET ${path} answered ${page.status}: ${page.text}`);
    items.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return items;
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight; results in index order. */
export async function inPool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

/** A port on which nothing listens (taken free, then released). */
export async function closedPort(): Promise<number> {
  return freePort();
}

/** Postgres connector config pointing at the local server. */
export function localPostgresConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { host: '127.0.0.1', port: 5432, database: 'postgres', user: 'postgres', ...overrides };
}

/** The services still answer: the gateway's /readyz and an authenticated round trip to the catalog. */
export async function expectHealthy(stack: Stack): Promise<void> {
  const ready = await fetch(`${stack.baseUrl}/readyz`);
  expect(ready.status).toBe(200);
  const roundTrip = await call<Page<Project>>(stack, 'GET', '/v2/projects?limit=1');
  expect(roundTrip.status).toBe(200);
}

/** A two-node DAG: a source `extract` with this config feeding a sink `load` with that one. */
export function extractLoadDag(
  source: Record<string, unknown>,
  sink: Record<string, unknown>,
): Record<string, unknown> {
  return linearDag({ id: 'extract', type: 'source', config: source }, { id: 'load', type: 'sink', config: sink });
}

/** A valid two-node DAG: a postgres source feeding a postgres sink. */
export function copyDag(connectorId: string): Record<string, unknown> {
  return extractLoadDag(
    { connector_id: connectorId, table: 'orders' },
    { connector_id: connectorId, table: 'orders_copy', mode: 'append' },
  );
}

/** Creates a resource; fails with the answer's text unless it is a 201. Answers the created resource. */
export async function create<T = { id: string }>(
  stack: Stack,
  path: string,
  body: Record<string, unknown>,
): Promise<T> {
  const res = await call<T>(stack, 'POST', path, { body });
  if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

/**
 * Creates a resource as a careful client does under faults: one Idempotency-Key for every attempt, and a 503 or a
 * 409 `idempotency_in_progress` retried after its Retry-After (at most 1 s here) until a 201, within `timeoutMs`.
 */
export async function createUntilAccepted<T = { id: string }>(
  stack: Stack,
  path: string,
  body: Record<string, unknown>,
  timeoutMs = 30_000,
): Promise<T> {
  const headers = { 'idempotency-key': `create-${randomUUID()}` };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call<T>(stack, 'POST', path, { body, headers });
    if (res.status === 201) return res.body;
    const retryable = res.status === 503 || (res.status === 409 && problemCode(res) === 'idempotency_in_progress');
    if (!retryable || Date.now() > deadline) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
    const afterMs = Math.min(1_000, Number(res.headers.get('retry-after') ?? 1) * 1_000);
    await new Promise((resolve) => setTimeout(resolve, afterMs));
  }
}

/** Creates a connector of this type and config under a fresh name (the type's, unless `namePrefix`); answers its id. */
export async function createConnector(
  stack: Stack,
  type: string,
  config: Record<string, unknown>,
  namePrefix: string = type,
): Promise<string> {
  return (await create(stack, '/v2/connectors', { name: uniqueName(namePrefix), type, config })).id;
}

/** A valid pipeline with this DAG and a job on it (by hand only unless `job` sets a schedule). */
export async function createPipelineAndJob(
  stack: Stack,
  dag: Record<string, unknown>,
  job: Record<string, unknown> = {},
): Promise<{ pipelineId: string; jobId: string }> {
  const pipeline = await create<{ id: string; status: string; validation: unknown }>(stack, '/v2/pipelines', {
    name: uniqueName('pln'),
    dag,
  });
  if (pipeline.status !== 'valid')
    throw new Error(`pipeline is ${pipeline.status}: ${JSON.stringify(pipeline.validation)}`);
  const created = await create<{ id: string }>(stack, '/v2/jobs', {
    name: uniqueName('job'),
    pipeline_id: pipeline.id,
    ...job,
  });
  return { pipelineId: pipeline.id, jobId: created.id };
}

/** Trigger Run; fails unless it is a 202. Answers the queued run. */
export async function triggerRun(stack: Stack, jobId: string, body?: Record<string, unknown>): Promise<Run> {
  const res = await call<Run>(stack, 'POST', `/v2/jobs/${jobId}/run`, body === undefined ? {} : { body });
  if (res.status !== 202) throw new Error(`Trigger Run of ${jobId} answered ${res.status}: ${res.text}`);
  return res.body;
}

export async function getRun(stack: Stack, jobId: string, runId: string): Promise<Run> {
  const res = await call<Run>(stack, 'GET', `/v2/jobs/${jobId}/runs/${runId}`);
  if (res.status !== 200) throw new Error(`GET run ${runId} answered ${res.status}: ${res.text}`);
  return res.body;
}

/** Polls Get Run Status until `until(run)` holds; answers that run. The timeout message shows the last state seen. */
export async function waitForRun(
  stack: Stack,
  jobId: string,
  runId: string,
  until: (run: Run) => boolean,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<Run> {
  let last: Run | undefined;
  try {
    return await waitFor(
      async () => {
        last = await getRun(stack, jobId, runId);
        return until(last) ? last : undefined;
      },
      { what: `run ${runId} to reach the expected state`, timeoutMs, intervalMs: everyMs },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: err });
  }
}

const FINAL_RUN_STATUSES = new Set(['succeeded', 'failed', 'canceled']);

/** Polls until the run is over (succeeded, failed or canceled). */
export async function waitForRunEnd(stack: Stack, jobId: string, runId: string, timeoutMs = 30_000): Promise<Run> {
  return waitForRun(stack, jobId, runId, (run) => FINAL_RUN_STATUSES.has(run.status), timeoutMs);
}

/** The node of a run with this id; fails if the run has none. */
export function nodeOf(run: Run, id: string): RunNode {
  const node = run.nodes.find((n) => n.id === id);
  if (!node) throw new Error(`run has no node ${id}: ${JSON.stringify(run.nodes)}`);
  return node;
}

/** Creates a pipeline and a job for `dag`, triggers a run and waits for its end. */
export async function runDagToEnd(stack: Stack, dag: Record<string, unknown>, timeoutMs = 90_000): Promise<Run> {
  const { jobId } = await createPipelineAndJob(stack, dag);
  const queued = await triggerRun(stack, jobId);
  return waitForRunEnd(stack, jobId, queued.id, timeoutMs);
}

/** The run's status and its nodes' errors, so that a failed assertion shows why. */
export function runOutcome(run: Run): { status: string; errors: unknown[] } {
  return {
    status: run.status,
    errors: run.nodes.filter((n) => n.error !== null).map((n) => ({ node: n.id, error: n.error })),
  };
}

/** `{column: DuckDB type}` of a node as Get Run Status shows it. */
export function nodeColumnTypes(run: Run, node: string): Record<string, string | null | undefined> {
  return Object.fromEntries((nodeOf(run, node).columns ?? []).map((c) => [c.name, c.type]));
}
