import { describe, expect, it } from '@jest/globals';
import { useMonitoringSuite } from './support/monitoring-suite.js';
import { QUEUES, type Page, type RunLogBatch, type RunLogLine, type RunLogTail } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { LogRetention } from '../src/logs/log-retention.js';
import { RunLogStore } from '../src/logs/run-log-store.js';
import { seqOf } from '../src/logs/run-log-seq.js';
import { newTenant } from './support/db.js';
import { waitFor } from '@conduit/testing';
import { logBatch, newRun, runEvent, type RunShape } from './support/run-events.js';

const suite = useMonitoringSuite({
  monitoring: { logRetentionDays: 30 },
  queues: [QUEUES.logs, QUEUES.eventsMonitoring],
});
const { caller } = suite;
const logsQueue = suite.queue(QUEUES.logs);
const eventsQueue = suite.queue(QUEUES.eventsMonitoring);

let jobSeq = 0;
/** Ships batches as the executor does and waits until each is stored. */
async function ship(...batches: RunLogBatch[]): Promise<void> {
  const ids: string[] = [];
  for (const b of batches) {
    const id = `${b.run_id}-${b.attempt}-${b.lines[0]!.n}-${jobSeq++}`;
    ids.push(id);
    await logsQueue.add('run.logs', b, { jobId: id });
  }
  await waitFor(
    async () =>
      (await Promise.all(ids.map(async (id) => (await logsQueue.getJob(id))?.getState()))).every(
        (s) => s === 'completed',
      ),
    { what: 'log batches stored' },
  );
}

async function publish(event: { event_id: string; type: string }): Promise<void> {
  await eventsQueue.add(event.type, event, { jobId: event.event_id });
  await waitFor(async () => (await eventsQueue.getJob(event.event_id))?.isCompleted(), { what: 'event processed' });
}

function list(tenant: string, run: RunShape, query: Record<string, unknown> = {}) {
  return caller.call<Page<RunLogLine>>(tenant, 'monitoring.logs.list', {
    job_id: run.job_id,
    run_id: run.id,
    query: { limit: 50, ...query },
  });
}

async function listOk(tenant: string, run: RunShape, query: Record<string, unknown> = {}): Promise<Page<RunLogLine>> {
  const reply = await list(tenant, run, query);
  if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  return reply.data;
}

function tail(
  tenant: string,
  run: RunShape,
  afterSeq: number,
  filter: Record<string, unknown> = {},
): Promise<RunLogTail> {
  return caller.ok<RunLogTail>(tenant, 'monitoring.logs.tail', {
    job_id: run.job_id,
    run_id: run.id,
    after_seq: afterSeq,
    ...filter,
  });
}

describe('run logs', () => {
  const t = newTenant();
  const run = newRun(newId('job'));

  beforeAll(async () => {
    await publish(runEvent(t, run, 'running'));
    // The second batch of attempt 1 overtakes the first; attempt 2 follows; one batch is delivered twice.
    await ship(logBatch(t, run, 5, 5), logBatch(t, run, 0, 5), logBatch(t, run, 0, 3, 2), logBatch(t, run, 0, 5));
  });

  it('page in order by seq, attempt by attempt, each line once', async () => {
    const seen: RunLogLine[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await listOk(t, run, { limit: 4, ...(cursor ? { cursor } : {}) });
      expect(page.data.length).toBeLessThanOrEqual(4);
      seen.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.map((l) => l.message)).toEqual([
      ...Array.from({ length: 10 }, (_, n) => `attempt 1 line ${n}`),
      ...Array.from({ length: 3 }, (_, n) => `attempt 2 line ${n}`),
    ]);
    expect(seen.map((l) => l.seq)).toEqual([...seen.map((l) => l.seq)].sort((a, b) => a - b));
    expect(seen[0]).toEqual({
      seq: 1,
      ts: expect.stringMatching(/Z$/),
      level: 'info',
      node_id: 'a',
      message: 'attempt 1 line 0',
    });
  });

  it('store the batches of one turn in one statement, each line counted once, for its first batch', async () => {
    const store = suite.monitoring.app.get(RunLogStore);
    const other = newRun(newId('job'));
    const first = logBatch(t, other, 0, 4);
    const stored = await Promise.all(
      [first, logBatch(t, other, 2, 4), { ...first }, logBatch(t, other, 0, 2, 2)].map((b) => store.store(b)),
    );
    expect(stored).toEqual([4, 2, 0, 2]);
    expect((await listOk(t, other)).data.map((l) => l.message)).toEqual([
      ...Array.from({ length: 6 }, (_, n) => `attempt 1 line ${n}`),
      'attempt 2 line 0',
      'attempt 2 line 1',
    ]);
  });

  it('filter by level and node', async () => {
    const errors = await listOk(t, run, { level: 'error' });
    expect(errors.data.map((l) => l.message)).toEqual([
      'attempt 1 line 2',
      'attempt 1 line 5',
      'attempt 1 line 8',
      'attempt 2 line 2',
    ]);
    const b = await listOk(t, run, { node_id: 'b', level: 'info' });
    expect(b.data.map((l) => l.message)).toEqual(['attempt 1 line 3', 'attempt 1 line 9']);
  });

  it('answer 404 for an unknown run, another job’s, or another tenant’s', async () => {
    for (const [tenant, r] of [
      [t, newRun(run.job_id)],
      [t, { ...run, job_id: newId('job') }],
      [newTenant(), run],
    ] as const) {
      expect(await list(tenant, r)).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(
        await caller.call(tenant, 'monitoring.logs.tail', { job_id: r.job_id, run_id: r.id, after_seq: 0 }),
      ).toMatchObject({ ok: false, error: { code: 'not_found' } });
    }
    expect(await list(t, run, { cursor: 'bogus' })).toMatchObject({ ok: false, error: { code: 'invalid_parameter' } });
  });

  it('tail after a position, stop at a hole while the run is live, and report the end once it is over', async () => {
    const live = newRun(run.job_id);
    await publish(runEvent(t, live, 'running'));
    await ship(logBatch(t, live, 0, 3), logBatch(t, live, 6, 2));
    let answer = await tail(t, live, 0);
    expect(answer.data.map((l) => l.seq)).toEqual([1, 2, 3]);
    expect(answer.run_finished).toBe(false);
    expect((await tail(t, live, 2, { level: 'error' })).data.map((l) => l.message)).toEqual(['attempt 1 line 2']);

    await ship(logBatch(t, live, 3, 3));
    answer = await tail(t, live, 3);
    expect(answer.data.map((l) => l.seq)).toEqual([4, 5, 6, 7, 8]);
    await publish(runEvent(t, live, 'succeeded'));
    const last = seqOf(1, 7);
    const end = await waitFor(
      async () => {
        const a = await tail(t, live, last);
        return a.run_finished ? a : undefined;
      },
      { what: 'the run to count as ended' },
    );
    expect(end.data).toEqual([]);
  });

  it('remove lines older than the retention, and nothing newer', async () => {
    const old = newRun(run.job_id);
    const batch = logBatch(t, old, 0, 4);
    const aged = {
      ...batch,
      lines: batch.lines.map((l, i) => ({
        ...l,
        ts: new Date(Date.now() - (i < 3 ? 31 : 29) * 86_400_000).toISOString(),
      })),
    };
    await ship(aged);
    const result = await suite.monitoring.app.get(LogRetention).cleanup();
    expect(result?.logLines).toBe(3);
    expect((await listOk(t, old)).data.map((l) => l.message)).toEqual(['attempt 1 line 3']);
    expect((await listOk(t, run)).data).toHaveLength(13);
  });
});
