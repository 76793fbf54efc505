import { jest } from '@jest/globals';
import type { QUEUES, RunNode } from '@conduit/contracts';
import { JobDataInvalidError, type GroupedAdds } from '@conduit/service-kit';
import { waitFor } from '@conduit/testing';
import { pino } from 'pino';
import { RunReporter } from './run-reporter.js';

/**
 * A queue whose adds fail while `down` says so and wait while `gate` is set, recording each added report (its type,
 * with the node id and status of a node report) and each send's size.
 */
function recordingQueue(down: () => boolean = () => false) {
  const added: string[] = [];
  const sends: number[] = [];
  let gate: Promise<void> | undefined;
  const queue = {
    add: async (jobs: { name: string; data: { node?: RunNode } }[]) => {
      await Promise.resolve();
      await gate;
      if (down()) throw new Error('Connection is closed.');
      added.push(...jobs.map((j) => (j.data.node ? `${j.data.node.id}:${j.data.node.status}` : j.name)));
      sends.push(jobs.length);
    },
  } as unknown as GroupedAdds<typeof QUEUES.eventsScheduler>;
  /** Holds every add until the returned function is called. */
  const hold = (): (() => void) => {
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    return () => {
      gate = undefined;
      open();
    };
  };
  return { queue, added, sends, hold };
}

/** `queue`, but a send holding a final report is refused by the contract (as a too large one is). */
function refusingFinal(queue: GroupedAdds<typeof QUEUES.eventsScheduler>): GroupedAdds<typeof QUEUES.eventsScheduler> {
  return {
    add: async (jobs: { name: string; data: { node?: RunNode } }[]) => {
      if (jobs.some((j) => j.name === 'run.finished'))
        throw new JobDataInvalidError('events.scheduler', 'run.finished', ['nodes: too large']);
      return (queue as unknown as { add: (j: typeof jobs) => Promise<void> }).add(jobs);
    },
  } as unknown as GroupedAdds<typeof QUEUES.eventsScheduler>;
}

const identity = { run_id: 'run_1', tenant_id: 'tnt_1', attempt: 1, epoch: 1 };
const silent = pino({ level: 'silent' });
const node = (id: string, status: RunNode['status']) => ({ id, status }) as RunNode;
const finished = (nodes: RunNode[] = []) => ({
  type: 'run.finished' as const,
  status: 'succeeded' as const,
  error: null,
  stats: { rows_read: 0, rows_written: 0 },
  nodes,
});

describe('RunReporter', () => {
  it('keeps a report that Redis refused and sends it, in order, once Redis is back (a final report is never dropped by an outage)', async () => {
    let failures = 3;
    const { queue, added } = recordingQueue(() => failures-- > 0);
    const reporter = new RunReporter(queue, identity, silent);
    reporter.send({ type: 'run.node', node: node('n', 'failed') });
    reporter.send(finished());
    await reporter.flushed();
    expect(added).toEqual(['n:failed', 'run.finished']);
  });

  it('sends the reports of one turn together, and those made while a send is on its way together in the next', async () => {
    const { queue, added, sends, hold } = recordingQueue();
    const reporter = new RunReporter(queue, identity, silent);
    const release = hold();
    reporter.send({ type: 'run.node', node: node('a', 'succeeded') });
    reporter.send({ type: 'run.node', node: node('b', 'skipped') });
    await new Promise((resolve) => setImmediate(resolve));
    for (const id of ['c', 'd', 'e']) reporter.send({ type: 'run.node', node: node(id, 'succeeded') });
    release();
    await reporter.flushed();
    expect(added).toEqual(['a:succeeded', 'b:skipped', 'c:succeeded', 'd:succeeded', 'e:succeeded']);
    expect(sends).toEqual([2, 3]);
  });

  it("holds a node's running report for the progress delay and drops it when the node ends first", async () => {
    const { queue, added } = recordingQueue();
    const reporter = new RunReporter(queue, identity, silent, { progressDelayMs: 50 });
    reporter.send({ type: 'run.node', node: node('short', 'running') });
    reporter.send({ type: 'run.node', node: node('long', 'running') });
    reporter.send({ type: 'run.node', node: node('short', 'succeeded') });
    await waitFor(() => added.length === 2, { what: 'the short node end and the long node start' });
    expect(added).toEqual(['short:succeeded', 'long:running']);
    reporter.send({ type: 'run.node', node: node('long', 'succeeded') });
    await reporter.flushed();
    expect(added).toEqual(['short:succeeded', 'long:running', 'long:succeeded']);
  });

  it('holds each running report for its own delay, not for the one of the first report held', async () => {
    // Fake clock for the delays only: the reporter's turn (setImmediate) and the queue's promises stay real.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const settle = async () => {
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    try {
      const { queue, added } = recordingQueue();
      const reporter = new RunReporter(queue, identity, silent, { progressDelayMs: 100 });
      reporter.send({ type: 'run.node', node: node('a', 'running') });
      jest.advanceTimersByTime(60);
      reporter.send({ type: 'run.node', node: node('b', 'running') });
      jest.advanceTimersByTime(40);
      await settle();
      expect(added).toEqual(['a:running']);
      jest.advanceTimersByTime(59);
      await settle();
      expect(added).toEqual(['a:running']);
      jest.advanceTimersByTime(1);
      await settle();
      expect(added).toEqual(['a:running', 'b:running']);
    } finally {
      jest.useRealTimers();
    }
  });

  describe('the end of a node that may wait (endMayWait)', () => {
    const repeatable = (n: RunNode) => n.id.startsWith('t');

    it('waits, and every waiting end leaves once the first is due, in the order made', async () => {
      jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
      const settle = async () => {
        for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      };
      try {
        const { queue, added, sends } = recordingQueue();
        const reporter = new RunReporter(queue, identity, silent, { progressDelayMs: 100, endMayWait: repeatable });
        reporter.send({ type: 'run.node', node: node('t1', 'running') });
        reporter.send({ type: 'run.node', node: node('t1', 'succeeded') });
        jest.advanceTimersByTime(60);
        reporter.send({ type: 'run.node', node: node('t2', 'succeeded') });
        reporter.send({ type: 'run.node', node: node('t3', 'running') });
        jest.advanceTimersByTime(39);
        await settle();
        expect(added).toEqual([]);
        jest.advanceTimersByTime(1);
        await settle();
        // t2's end went with t1's, 40 ms before its own delay; t3's start keeps its own.
        expect(added).toEqual(['t1:succeeded', 't2:succeeded']);
        expect(sends).toEqual([2]);
        jest.advanceTimersByTime(60);
        await settle();
        expect(added).toEqual(['t1:succeeded', 't2:succeeded', 't3:running']);
      } finally {
        jest.useRealTimers();
      }
    });

    it('leaves ahead of any report that does not wait, so no later end reaches the scheduler before it', async () => {
      const { queue, added, sends } = recordingQueue();
      const reporter = new RunReporter(queue, identity, silent, { progressDelayMs: 60_000, endMayWait: repeatable });
      reporter.send({ type: 'run.node', node: node('t1', 'succeeded') });
      reporter.send({ type: 'run.node', node: node('t2', 'running') });
      reporter.send({ type: 'run.node', node: node('sink', 'succeeded') });
      await waitFor(() => added.length === 2, { what: "the waiting end and the sink's" });
      expect(added).toEqual(['t1:succeeded', 'sink:succeeded']);
      expect(sends).toEqual([2]);
      reporter.send({ type: 'run.node', node: node('t2', 'failed') });
      await waitFor(() => added.length === 3, { what: 'the failure, at once' });
      expect(added).toEqual(['t1:succeeded', 'sink:succeeded', 't2:failed']);
    });

    it('leaves as soon as a node whose end cannot wait starts (a sink may write next)', async () => {
      const { queue, added } = recordingQueue();
      const reporter = new RunReporter(queue, identity, silent, { progressDelayMs: 60_000, endMayWait: repeatable });
      reporter.send({ type: 'run.node', node: node('t1', 'succeeded') });
      reporter.send({ type: 'run.node', node: node('t2', 'running') });
      reporter.send({ type: 'run.node', node: node('sink', 'running') });
      await waitFor(() => added.length === 1, { what: 'the waiting end' });
      expect(added).toEqual(['t1:succeeded']);
    });

    it('is sent after all when the final report that stated it is refused by its schema', async () => {
      const { queue, added } = recordingQueue();
      const reporter = new RunReporter(refusingFinal(queue), identity, silent, {
        progressDelayMs: 60_000,
        endMayWait: repeatable,
      });
      reporter.send({ type: 'run.node', node: node('t1', 'succeeded') });
      reporter.send(finished([node('t1', 'succeeded')]));
      await reporter.flushed();
      expect(added).toEqual(['t1:succeeded']);
    });

    it("is dropped for the nodes the final report states, and a node that cannot run again doesn't wait", async () => {
      const { queue, added } = recordingQueue();
      const reporter = new RunReporter(queue, identity, silent, { progressDelayMs: 60_000, endMayWait: repeatable });
      reporter.send({ type: 'run.node', node: node('source', 'succeeded') });
      await waitFor(() => added.length === 1, { what: "the source's end, at once" });
      reporter.send({ type: 'run.node', node: node('t1', 'succeeded') });
      reporter.send(finished([node('source', 'succeeded'), node('t1', 'succeeded')]));
      await reporter.flushed();
      expect(added).toEqual(['source:succeeded', 'run.finished']);
    });
  });

  it('sends every node end of a batch whose final report the contract refuses', async () => {
    const { queue, added } = recordingQueue();
    const reporter = new RunReporter(refusingFinal(queue), identity, silent);
    reporter.send({ type: 'run.node', node: node('a', 'succeeded') });
    reporter.send(finished([node('a', 'succeeded')]));
    await reporter.flushed();
    expect(added).toEqual(['a:succeeded']);
  });

  it("sends a held running report as soon as the run's reports are flushed (a run handed back)", async () => {
    const { queue, added } = recordingQueue();
    const reporter = new RunReporter(queue, identity, silent, { progressDelayMs: 60_000 });
    reporter.send({ type: 'run.node', node: node('a', 'running') });
    await reporter.flushed();
    expect(added).toEqual(['a:running']);
  });

  it('drops the node reports of its batch that the final report states again, and keeps the others', async () => {
    const { queue, added, sends } = recordingQueue();
    const reporter = new RunReporter(queue, identity, silent);
    reporter.send({ type: 'run.node', node: node('a', 'running') });
    reporter.send({ type: 'run.node', node: node('b', 'succeeded') });
    reporter.send({ type: 'run.node', node: node('c', 'failed') });
    reporter.send(finished([node('a', 'succeeded'), node('b', 'succeeded')]));
    await reporter.flushed();
    expect(added).toEqual(['c:failed', 'run.finished']);
    expect(sends).toEqual([2]);
  });

  it('gives up after its retry time, logging, without throwing', async () => {
    const { queue, added } = recordingQueue(() => true);
    const reporter = new RunReporter(queue, identity, silent, { retryMs: 50 });
    reporter.send({ ...finished(), status: 'failed' });
    await expect(reporter.flushed()).resolves.toBeUndefined();
    expect(added).toEqual([]);
  });
});
