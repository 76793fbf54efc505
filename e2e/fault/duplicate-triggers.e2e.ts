import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { type Stack, stopProcess } from '@conduit/testing';
import { call, problemCode } from '../support/client.js';
import { createUntilAccepted, inPool, uniqueName, waitFor } from '../support/helpers.js';
import { type FaultStack, startFaultStack } from '../support/fault-stack.js';
import type { Job, Run } from '@conduit/contracts';

// R6 (issue 16): triggers with an Idempotency-Key, each sent twice, while every trigger's commit lands after the
// gateway has answered 503 (SCHEDULER_FAULT_COMMIT_DELAY_MS, a test-only fault point after the deadline check), and
// requests that wait in the scheduler's queue past their deadline are abandoned. Exactly one run per key.
//
// Sized for 2 shared cores: 2,000 keys over 100 jobs (a trigger holds its job's row for the commit delay, so fewer
// jobs would queue triggers behind each other until most passed their deadline), 30 clients at once: about 45
// triggers in the scheduler at a time, under its RPC concurrency (64) and pool (50); about a minute.
const KEYS = 2_000;
const JOBS = 100;
const CLIENTS = 30;
const RPC_TIMEOUT_MS = 400;
const COMMIT_DELAY_MS = 550;
const HOLD_AFTER_503_MS = 500;

let fault: FaultStack;
let stack: Stack;
let jobIds: string[];
/** The stack's database, to count the scheduler's runs. */
let db: pg.Client | undefined;

beforeAll(async () => {
  fault = await startFaultStack({
    RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
    SCHEDULER_FAULT_COMMIT_DELAY_MS: String(COMMIT_DELAY_MS),
    IDEMPOTENCY_HOLD_AFTER_503_MS: String(HOLD_AFTER_503_MS),
    SCHEDULER_DB_POOL_SIZE: '50',
  });
  stack = fault.stack;
  // This test counts runs made, not runs executed: without an executor they stay queued and cost nothing.
  for (const p of stack.processes.filter((p) => p.name === 'executor')) await stopProcess(p.child);
  const { pipeline_id } = (await call<Job>(stack, 'GET', `/v2/jobs/${fault.jobId}`)).body as { pipeline_id: string };
  // The stack's 400 ms RPC deadline can pass for a create on a busy machine: the setup retries as a client would.
  const more = await inPool(JOBS - 1, 8, () =>
    createUntilAccepted(stack, '/v2/jobs', { name: uniqueName('r6'), pipeline_id, concurrency_policy: 'allow' }),
  );
  jobIds = [fault.jobId, ...more.map((j) => j.id)];
}, 120_000);

afterAll(async () => {
  await db?.end();
  await fault?.destroy();
});

interface Sent {
  key: string;
  /** 'first', 'retry' (right after the first answered), 'until-accepted' (a client retrying after Retry-After). */
  kind: 'first' | 'retry' | 'until-accepted';
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  runId: string | undefined;
}

function trigger(key: string, jobId: string, kind: Sent['kind']): Promise<Sent> {
  return call<Run>(stack, 'POST', `/v2/jobs/${jobId}/run`, { body: {}, headers: { 'idempotency-key': key } }).then(
    (res) => ({
      key,
      kind,
      status: res.status,
      code: problemCode(res),
      retryAfter: res.headers.get('retry-after'),
      runId: res.status === 202 ? res.body.id : undefined,
    }),
  );
}

it('makes exactly one run per Idempotency-Key, answers only 202, 409 or 503, and a retry returns the first run', async () => {
  const keys = Array.from({ length: KEYS }, (_, i) => `r6-${i}-${randomUUID()}`);
  const jobOf = (i: number) => jobIds[i % JOBS]!;
  const sent: Sent[] = [];
  const started = Date.now();

  // Each key twice: the first request, then its retry as soon as the first is answered.
  await inPool(KEYS, CLIENTS, async (i) => {
    sent.push(await trigger(keys[i]!, jobOf(i), 'first'));
    sent.push(await trigger(keys[i]!, jobOf(i), 'retry'));
  });
  const twiceMs = Date.now() - started;
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  db = client;
  await client.connect();
  const runsFor = async (): Promise<{ idempotency_key: string; ids: string[] }[]> =>
    (
      await client.query<{ idempotency_key: string; ids: string[] }>(
        'select idempotency_key, array_agg(id) as ids from scheduler.runs where idempotency_key = any($1) group by idempotency_key',
        [keys],
      )
    ).rows;
  // No first request was answered 202 (each takes longer than the gateway waits): these runs were committed late.
  const lateCommits = (await runsFor()).length;

  // A client that got no run yet retries after the Retry-After it was given, until one is accepted.
  const pending = keys
    .map((key, i) => ({ key, i }))
    .filter(({ key }) => !sent.some((s) => s.key === key && s.status === 202));
  await inPool(pending.length, CLIENTS, async (n) => {
    const { key, i } = pending[n]!;
    await waitFor(
      async () => {
        const answer = await trigger(key, jobOf(i), 'until-accepted');
        sent.push(answer);
        return answer.status === 202;
      },
      { what: `a 202 for ${key}`, timeoutMs: 30_000, intervalMs: 200 },
    );
  });

  // Every answer is one a client can act on; 409s and 503s say when to come back.
  const unexpected = sent.filter(
    (s) =>
      !(
        (s.status === 202 && s.runId) ||
        (s.status === 409 && s.code === 'idempotency_in_progress' && s.retryAfter) ||
        (s.status === 503 && s.code === 'service_unavailable' && s.retryAfter)
      ),
  );
  expect(unexpected.slice(0, 5)).toEqual([]);

  // Exactly one run per key, counted in the scheduler's database, and every 202 of a key answers that run.
  let runs: { idempotency_key: string; ids: string[] }[] = [];
  // Every key has been answered 202, so its run is committed: one per key, and none without a key.
  await waitFor(
    async () => {
      runs = await runsFor();
      return runs.length === KEYS;
    },
    { what: 'one run per key', timeoutMs: 10_000 },
  );
  const { rows: all } = await client.query<{ n: string }>(
    'select count(*) as n from scheduler.runs where job_id = any($1)',
    [jobIds],
  );
  expect(Number(all[0]!.n)).toBe(KEYS);
  const runOf = new Map(runs.map((r) => [r.idempotency_key, r.ids]));
  expect(runs.filter((r) => r.ids.length !== 1)).toEqual([]);
  const mismatched = sent.filter((s) => s.status === 202 && runOf.get(s.key)?.[0] !== s.runId);
  expect(mismatched.slice(0, 5)).toEqual([]);

  // The fault really happened: first requests answered 503 while their run was committed, and retries found it.
  const count = (kind: Sent['kind'], status: number) =>
    sent.filter((s) => s.kind === kind && s.status === status).length;
  console.info(
    `R6: ${KEYS} keys in ${twiceMs} ms (each sent twice; ${lateCommits} runs committed after their 503), then ${pending.length} ` +
      `retried until accepted; total ${Date.now() - started} ms; ` +
      `first: 202 ${count('first', 202)}, 503 ${count('first', 503)}; retry: 202 ${count('retry', 202)}, 409 ${count('retry', 409)}, 503 ${count('retry', 503)}; ` +
      `until-accepted: ${sent.filter((s) => s.kind === 'until-accepted').length} requests`,
  );
  expect(count('first', 503)).toBeGreaterThan(KEYS / 2);
  expect(lateCommits).toBeGreaterThan(KEYS / 10);
}, 180_000);
