import { describe, expect, it } from '@jest/globals';
import { useSchedulerSuite } from './support/scheduler-suite.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { IdempotencyKey, Job, Run, RpcReply } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { requestStreamKey, rpcCall } from '@conduit/rpc-streams';
import { newTenant, rpcCtx } from './support/db.js';
import { waitFor } from '@conduit/testing';

// Issue 16: Trigger Run and Create Job keep the client's Idempotency-Key on the row, and work whose caller has
// given up is not committed. Over the real transport, on the real PostgreSQL and Redis.
/** Trigger Run waits this long after its deadline check, before its commit: a commit that lands late. */
const COMMIT_DELAY_MS = 600;
const suite = useSchedulerSuite({ scheduler: { background: { ticks: false }, faultCommitDelayMs: COMMIT_DELAY_MS } });
const { caller, store, prefix, schema } = suite;

const idem = (key = randomUUID()): IdempotencyKey => ({ key, fingerprint: randomBytes(32).toString('hex') });

function callWith<T>(
  tenant: string,
  pattern: string,
  data: unknown,
  idempotency: IdempotencyKey | undefined,
  timeoutMs = 10_000,
): Promise<RpcReply<T>> {
  const ctx = idempotency ? { ...rpcCtx(tenant), idempotency } : rpcCtx(tenant);
  return rpcCall<RpcReply<T>>(caller.client, pattern, { ctx, data }, { timeoutMs });
}

async function newJob(tenant: string): Promise<Job> {
  const pipeline = store.add(tenant);
  return caller.ok<Job>(tenant, 'scheduler.jobs.create', {
    body: { name: `job ${newId('job')}`, pipeline_id: pipeline.id, concurrency_policy: 'allow' },
  });
}

async function runsOf(jobId: string): Promise<{ id: string; idempotency_key: string | null }[]> {
  return suite.ds.query(`SELECT id, idempotency_key FROM "${schema}".runs WHERE job_id = $1`, [jobId]);
}

/** Until the scheduler has finished every request it took (acked its stream entries): a handler's work is over. */
async function schedulerIdle(): Promise<void> {
  await waitFor(
    async () => {
      const [pending] = (await suite.redis.xpending(requestStreamKey(prefix, 'scheduler'), 'scheduler')) as [
        number,
        ...unknown[],
      ];
      return pending === 0;
    },
    { what: 'the scheduler to finish its requests' },
  );
}

describe('Idempotency-Key on the scheduler', () => {
  it('answers the run a key made instead of a second one, and 422 for the key with another request', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const key = idem();
    const first = await callWith<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} }, key);
    const again = await callWith<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} }, key);
    if (!first.ok || !again.ok) throw new Error(JSON.stringify([first, again]));
    expect(again.data.id).toBe(first.data.id);
    expect((await runsOf(job.id)).map((r) => r.id)).toEqual([first.data.id]);

    const reused = await callWith<Run>(
      t,
      'scheduler.runs.trigger',
      { job_id: job.id, body: {} },
      { key: key.key, fingerprint: idem().fingerprint },
    );
    expect(reused).toMatchObject({ ok: false, error: { code: 'idempotency_key_reused' } });
  });

  it('creates one job per key', async () => {
    const t = newTenant();
    const pipeline = store.add(t);
    const key = idem();
    const body = { body: { name: 'keyed', pipeline_id: pipeline.id } };
    const [a, b] = await Promise.all([
      callWith<Job>(t, 'scheduler.jobs.create', body, key),
      callWith<Job>(t, 'scheduler.jobs.create', body, key),
    ]);
    if (!a.ok || !b.ok) throw new Error(JSON.stringify([a, b]));
    expect(b.data.id).toBe(a.data.id);
    const rows: unknown[] = await suite.ds.query(`SELECT id FROM "${schema}".jobs WHERE tenant_id = $1`, [t]);
    expect(rows).toHaveLength(1);
  });

  it('commits no run once its caller has given up', async () => {
    const t = newTenant();
    const job = await newJob(t);
    store.snapshotDelayMs = 400;
    await store.changed(t);
    try {
      // The caller waits 300 ms; the catalog alone takes 400: the deadline has passed when the transaction would commit.
      await expect(
        callWith<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} }, undefined, 300),
      ).rejects.toMatchObject({ name: 'RpcTimeoutError' });
      await schedulerIdle();
      expect(await runsOf(job.id)).toEqual([]);
    } finally {
      store.snapshotDelayMs = 0;
    }
  });

  it('commits no run when the job row was held past its caller giving up (a job update, the schedule clock)', async () => {
    const t = newTenant();
    const job = await newJob(t);
    // Another transaction holds the job row alone, as an update of the job or the schedule clock taking its fire does.
    const holder = suite.ds.createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      await holder.query(`SELECT 1 FROM "${schema}".jobs WHERE id = $1 FOR UPDATE`, [job.id]);
      // The caller waits 1 s: time for the deadline check (and the test's commit delay), not for the row.
      await expect(
        callWith<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} }, undefined, 1_000),
      ).rejects.toMatchObject({ name: 'RpcTimeoutError' });
      await holder.commitTransaction();
    } finally {
      await holder.release();
    }
    await schedulerIdle();
    expect(await runsOf(job.id)).toEqual([]);
  });

  it('a retry after a 503 whose run committed late answers that run', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const key = idem();
    // Passes the deadline check, then commits COMMIT_DELAY_MS later, after its caller gave up.
    await expect(
      callWith<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} }, key, 300),
    ).rejects.toMatchObject({ name: 'RpcTimeoutError' });
    const retried = await callWith<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} }, key);
    if (!retried.ok) throw new Error(JSON.stringify(retried));
    await schedulerIdle();
    expect(await runsOf(job.id)).toEqual([{ id: retried.data.id, idempotency_key: key.key }]);
  });
});
