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

  describe('tail with a filter past more than a batch (1,000) of lines it leaves out', () => {
    /** Lines n = from..to-1 of attempt 1: node `other` at level info, but node `last` at level error for n in `last`. */
    function lines(r: RunShape, from: number, to: number, last: readonly number[]): RunLogBatch {
      return {
        ...logBatch(t, r, from, to - from),
        lines: Array.from({ length: to - from }, (_, i) => {
          const n = from + i;
          const mine = last.includes(n);
          return {
            n,
            ts: new Date().toISOString(),
            level: mine ? 'error' : 'info',
            node_id: mine ? 'last' : 'other',
            message: `line ${n}`,
          };
        }),
      };
    }
    const store = () => suite.monitoring.app.get(RunLogStore);
    const mine = [1495, 1496, 1497];
    const mineSeqs = mine.map((n) => seqOf(1, n));

    it('of a live run: answer how far it looked, stop at a hole, and go on past it once it is filled', async () => {
      const live = newRun(run.job_id);
      await publish(runEvent(t, live, 'running'));
      await store().store(lines(live, 0, 1200, mine));
      await store().store(lines(live, 1300, 1500, mine));
      for (const filter of [{ node_id: 'last' }, { level: 'error' }]) {
        expect(await tail(t, live, 0, filter)).toEqual({ data: [], scanned_seq: 1000, run_finished: false });
        // Up to the hole (n = 1200..1299 not stored yet), not past it.
        expect(await tail(t, live, 1000, filter)).toEqual({ data: [], scanned_seq: 1200, run_finished: false });
        expect(await tail(t, live, 1200, filter)).toEqual({ data: [], scanned_seq: 1200, run_finished: false });
      }
      await store().store(lines(live, 1200, 1300, mine));
      const answer = await tail(t, live, 1200, { node_id: 'last' });
      expect(answer).toMatchObject({ scanned_seq: 1500, run_finished: false });
      expect(answer.data).toEqual(
        mine.map((n) => ({
          seq: seqOf(1, n),
          ts: expect.any(String),
          level: 'error',
          node_id: 'last',
          message: `line ${n}`,
        })),
      );
      expect(await tail(t, live, 1500, { node_id: 'last' })).toEqual({
        data: [],
        scanned_seq: 1500,
        run_finished: false,
      });
      // Unfiltered, as before: a batch of lines and how far.
      const all = await tail(t, live, 0);
      expect(all.data.map((l) => l.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
      expect(all).toMatchObject({ scanned_seq: 1000, run_finished: false });
    });

    it('of a finished run: the matching lines and the end at once, or the end when none is left', async () => {
      const done = newRun(run.job_id);
      await store().store(lines(done, 0, 1500, mine));
      await publish(runEvent(t, done, 'succeeded'));
      const first = await waitFor(
        async () => {
          const a = await tail(t, done, 0, { node_id: 'last' });
          return a.run_finished ? a : undefined;
        },
        { what: 'the run to count as ended' },
      );
      expect(first.data.map((l) => l.seq)).toEqual(mineSeqs);
      expect(first.scanned_seq).toBe(mineSeqs.at(-1));
      expect((await tail(t, done, 0, { level: 'error', node_id: 'last' })).data.map((l) => l.seq)).toEqual(mineSeqs);
      // Nothing matches after a position, or at all: ended, not a stream waiting for ever.
      expect(await tail(t, done, mineSeqs.at(-1)!, { node_id: 'last' })).toEqual({
        data: [],
        scanned_seq: mineSeqs.at(-1),
        run_finished: true,
      });
      expect(await tail(t, done, 0, { node_id: 'nobody' })).toEqual({ data: [], scanned_seq: 0, run_finished: true });
      // More than a batch that matches: a full batch, then the rest and the end.
      const a = await tail(t, done, 0, { level: 'info' });
      expect(a).toMatchObject({ scanned_seq: 1000, run_finished: false });
      expect(a.data).toHaveLength(1000);
      const b = await tail(t, done, a.scanned_seq, { level: 'info' });
      expect(b.data.map((l) => l.seq)).toEqual(
        Array.from({ length: 497 }, (_, i) => 1001 + i + (1001 + i > 1495 ? 3 : 0)),
      );
      expect(b).toMatchObject({ scanned_seq: 1500, run_finished: true });
    });

    it('leave List Run Logs paging as it is', async () => {
      const listed = newRun(run.job_id);
      await store().store(lines(listed, 0, 1500, mine));
      const page = await listOk(t, listed, { node_id: 'last', limit: 2 });
      expect(page.data.map((l) => l.seq)).toEqual(mineSeqs.slice(0, 2));
      expect(page.next_cursor).toEqual(expect.any(String));
      const rest = await listOk(t, listed, { node_id: 'last', limit: 2, cursor: page.next_cursor });
      expect(rest).toEqual({ data: [expect.objectContaining({ seq: mineSeqs[2] })], next_cursor: null });
    });
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
