import type { QUEUES } from '@conduit/contracts';
import type { GroupedAdds } from '@conduit/service-kit';
import { pino } from 'pino';
import { RunReporter } from './run-reporter.js';

/** A queue whose adds fail while `down` says so, recording the ones that got through and each send's size. */
function flakyQueue(down: () => boolean) {
  const added: string[] = [];
  const sends: number[] = [];
  const queue = {
    add: async (jobs: { name: string }[]) => {
      await Promise.resolve();
      if (down()) throw new Error('Connection is closed.');
      added.push(...jobs.map((j) => j.name));
      sends.push(jobs.length);
    },
  } as unknown as GroupedAdds<typeof QUEUES.eventsScheduler>;
  return { queue, added, sends };
}

const identity = { run_id: 'run_1', tenant_id: 'tnt_1', attempt: 1, epoch: 1 };
const silent = pino({ level: 'silent' });

describe('RunReporter', () => {
  it('keeps a report that Redis refused and sends it, in order, once Redis is back (a final report is never dropped by an outage)', async () => {
    let failures = 3;
    const { queue, added } = flakyQueue(() => failures-- > 0);
    const reporter = new RunReporter(queue, identity, silent);
    void reporter.send({ type: 'run.node', node: { id: 'n' } as never });
    void reporter.send({
      type: 'run.finished',
      status: 'succeeded',
      error: null,
      stats: { rows_read: 0, rows_written: 0 },
      nodes: [],
    });
    await reporter.flushed();
    expect(added).toEqual(['run.node', 'run.finished']);
  });

  it('sends the reports made while a send is on its way together, in order, in the next send', async () => {
    const { queue, added, sends } = flakyQueue(() => false);
    const reporter = new RunReporter(queue, identity, silent);
    for (const id of ['a', 'b', 'c']) void reporter.send({ type: 'run.node', node: { id } as never });
    await reporter.send({
      type: 'run.finished',
      status: 'succeeded',
      error: null,
      stats: { rows_read: 0, rows_written: 0 },
      nodes: [],
    });
    expect(added).toEqual(['run.node', 'run.node', 'run.node', 'run.finished']);
    expect(sends).toEqual([1, 3]);
  });

  it('gives up after its retry time, logging, without throwing', async () => {
    const { queue, added } = flakyQueue(() => true);
    const reporter = new RunReporter(queue, identity, silent, 50);
    await expect(
      reporter.send({
        type: 'run.finished',
        status: 'failed',
        error: null,
        stats: { rows_read: 0, rows_written: 0 },
        nodes: [],
      }),
    ).resolves.toBeUndefined();
    expect(added).toEqual([]);
  });
});
