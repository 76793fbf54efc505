import type { QUEUES } from '@conduit/contracts';
import { GroupedAdds } from './grouped-adds.js';
import { JobDataInvalidError } from './job-data-invalid-error.js';
import type { ProducedJob, QueueProducer } from './queue-producer.js';

type Logs = typeof QUEUES.logs;
const group = (id: string) => [{ name: 'run.logs', data: {}, opts: { jobId: id } }] as unknown as ProducedJob<Logs>[];

/** A producer whose addBatch answers `outcome` for the ids it is given, recording each call's ids. */
function producer(outcome: (ids: string[]) => Error | undefined) {
  const calls: string[][] = [];
  const fake = {
    addBatch: async (jobs: ProducedJob<Logs>[]) => {
      await Promise.resolve();
      const ids = jobs.map((j) => j.opts.jobId);
      calls.push(ids);
      const err = outcome(ids);
      if (err) throw err;
      return [];
    },
  } as unknown as QueueProducer<Logs>;
  return { fake, calls };
}

describe('GroupedAdds', () => {
  it('fails every group of a round at once when Redis does not take it, without trying them one by one', async () => {
    const { fake, calls } = producer(() => new Error('Connection is closed.'));
    const adds = new GroupedAdds(fake);
    const settled = await Promise.allSettled(['a', 'b', 'c'].map((id) => adds.add(group(id))));
    expect(settled.map((s) => (s.status === 'rejected' ? (s.reason as Error).message : s.status))).toEqual([
      'Connection is closed.',
      'Connection is closed.',
      'Connection is closed.',
    ]);
    expect(calls).toEqual([['a', 'b', 'c']]);
  });

  it('tries each group alone when a schema refuses one, so only that one fails', async () => {
    const { fake, calls } = producer((ids) =>
      ids.includes('bad') ? new JobDataInvalidError('logs', 'run.logs', ['lines: too many']) : undefined,
    );
    const adds = new GroupedAdds(fake);
    const settled = await Promise.allSettled(['a', 'bad', 'c'].map((id) => adds.add(group(id))));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(calls).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });
});
