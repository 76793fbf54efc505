// The few public-API calls the run benches make: create a connector, a pipeline and a job, trigger runs and wait
// for them. Every call goes through the gateway like a client's; an unexpected status throws with the body.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DATA_SERVER_URL } from './bench-database.mjs';

const FINAL = new Set(['succeeded', 'failed', 'canceled']);

/** One JSON call; throws unless the status is `expected`. */
export async function api(stack, method, path, body, expected) {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': stack.bootstrapKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * A postgres connector on `database` of the benches' data server (bench-database.mjs): never the stack's own server,
 * which connectors may not reach. The stack must allow private networks (the server is on this machine).
 */
export async function stackConnector(stack, database, serverUrl = DATA_SERVER_URL) {
  const server = new URL(serverUrl);
  const config = {
    host: server.hostname,
    port: Number(server.port || 5432),
    database,
    user: decodeURIComponent(server.username) || 'postgres',
  };
  return (
    await api(
      stack,
      'POST',
      '/v2/connectors',
      { name: `bench-pg-${randomUUID().slice(0, 8)}`, type: 'postgres', config },
      201,
    )
  ).id;
}

/** A valid pipeline of this DAG and a job on it that allows overlapping runs. Answers the job id. */
export async function jobFor(stack, dag) {
  const pipeline = await api(stack, 'POST', '/v2/pipelines', { name: `bench-${randomUUID().slice(0, 8)}`, dag }, 201);
  if (pipeline.status !== 'valid')
    throw new Error(`bench pipeline is invalid: ${JSON.stringify(pipeline.validation.errors)}`);
  const job = await api(
    stack,
    'POST',
    '/v2/jobs',
    { name: `bench-${randomUUID().slice(0, 8)}`, pipeline_id: pipeline.id, concurrency_policy: 'allow' },
    201,
  );
  return job.id;
}

export const trigger = (stack, jobId) => api(stack, 'POST', `/v2/jobs/${jobId}/run`, undefined, 202);

/** Polls the run every `everyMs` until it is over; throws unless it succeeded. */
export async function waitSucceeded(stack, jobId, runId, { timeoutMs = 120_000, everyMs = 5 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await api(stack, 'GET', `/v2/jobs/${jobId}/runs/${runId}`, undefined, 200);
    if (FINAL.has(run.status)) {
      if (run.status !== 'succeeded') throw new Error(`run ${runId} ${run.status}: ${JSON.stringify(run.error)}`);
      return run;
    }
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Milliseconds between two RFC 3339 timestamps of a run. */
export const msBetween = (from, to) => Date.parse(to) - Date.parse(from);

/** One page of a job's runs (newest first), optionally of one status. */
export const listRuns = (stack, jobId, { status, limit = 200, cursor } = {}) =>
  api(
    stack,
    'GET',
    `/v2/jobs/${jobId}/runs?${new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) })}`,
    undefined,
    200,
  );

/** Every run of a job, page by page. */
export async function allRuns(stack, jobId) {
  const runs = [];
  let cursor;
  do {
    const page = await listRuns(stack, jobId, { cursor });
    runs.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return runs;
}

/** Waits until the job has no queued or running run (two list calls every `everyMs`, not one poll per run). */
export async function drained(stack, jobId, timeoutMs = 120_000, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [queued, running] = await Promise.all(
      ['queued', 'running'].map((status) => listRuns(stack, jobId, { status, limit: 1 })),
    );
    if (queued.data.length === 0 && running.data.length === 0) return;
    if (Date.now() > deadline) throw new Error(`runs still queued or running after ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** Triggers `count` runs of a job, `inFlight` Trigger Run calls at a time; answers their ids in trigger order. */
export async function triggerMany(stack, jobId, count, inFlight) {
  const ids = [];
  const triggerer = async () => {
    while (ids.length < count) {
      const slot = ids.push(undefined) - 1;
      ids[slot] = (await trigger(stack, jobId)).id;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, triggerer));
  return ids;
}
