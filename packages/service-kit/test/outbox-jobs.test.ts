import { QUEUES, type BatchJobData, type RunCommand, type RunLogBatch } from '@conduit/contracts';
import { QueueProducers, addOutboxJobs, type OutboxJob } from '../src/index.js';
import { REDIS_URL } from './servers.js';
import { useRedisPrefix } from './support/redis-prefix.js';

const batch = (runId: string, message: string): RunLogBatch => ({
  run_id: runId,
  tenant_id: 'tnt_1',
  job_id: 'job_1',
  attempt: 1,
  lines: [{ n: 0, ts: new Date().toISOString(), level: 'info', node_id: null, message }],
});

const command = (runId: string): RunCommand => ({
  run_id: runId,
  tenant_id: 'tnt_1',
  job_id: 'job_1',
  pipeline_id: 'pln_1',
  pipeline_version: 1,
  dag: { nodes: [], edges: [] },
  parameters: {},
  trigger: 'manual',
});

describe("the outbox relay's bulk adds", () => {
  const { redisPrefix, closeFirst } = useRedisPrefix();
  const producers = QueueProducers.open({ redisUrl: REDIS_URL, redisPrefix }, [QUEUES.logs, QUEUES.runs]);
  closeFirst(() => producers.close());

  it("adds a turn's jobs per queue in the turn's order, batched but for runs, and a turn sent again adds nothing new", async () => {
    const log = (id: string, message: string): OutboxJob => ({
      queue: QUEUES.logs,
      name: 'run.logs',
      data: batch(id.replace('log', 'run'), message),
      opts: { jobId: id },
    });
    const run = (id: string): OutboxJob => ({
      queue: QUEUES.runs,
      name: 'run',
      data: command(id),
      opts: { jobId: id },
    });
    const turn = [log('log_1', 'one'), run('run_a'), log('log_2', 'two'), log('log_3', 'three'), run('run_b')];
    await addOutboxJobs(producers, turn);
    await addOutboxJobs(producers, turn);

    // One batch job for the turn's log jobs, its items in the turn's order; one job per run command.
    const waitingLogs = await producers.of(QUEUES.logs).queue.getJobs(['wait'], 0, -1, true);
    expect(waitingLogs.map((j) => j.name)).toEqual(['batch']);
    const items = (waitingLogs[0]!.data as BatchJobData).jobs;
    expect(items.map((i) => [i.id, (i.data as RunLogBatch).lines[0]?.message])).toEqual([
      ['log_1', 'one'],
      ['log_2', 'two'],
      ['log_3', 'three'],
    ]);
    const waitingRuns = await producers.of(QUEUES.runs).queue.getJobs(['wait'], 0, -1, true);
    expect(waitingRuns.map((j) => j.id)).toEqual(['run_a', 'run_b']);
  });
});
