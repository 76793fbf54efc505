import { context, trace } from '@opentelemetry/api';
import { QUEUES, RUN_ERROR_MESSAGE_MAX, type RunReport } from '@conduit/contracts';
import { GroupedAdds, JobDataInvalidError, JOB_TRACE_KEY, QueueProducers, unbatchedJobs } from '../src/index.js';
import { REDIS_URL } from './servers.js';
import { useRedisPrefix } from './support/redis-prefix.js';
import { useTracing } from './support/tracing.js';

const at = new Date().toISOString();
const report = (runId: string, id: string, message = 'short'): RunReport => ({
  run_id: runId,
  tenant_id: 'tnt_1',
  attempt: 1,
  epoch: 1,
  at,
  event_id: id,
  type: 'run.finished',
  status: 'failed',
  error: { message },
  stats: { rows_read: 0, rows_written: 0 },
  nodes: [],
});
const job = (r: RunReport) => ({ name: r.type, data: r, opts: { jobId: r.event_id } });

describe('grouped adds', () => {
  const { redisPrefix, closeFirst } = useRedisPrefix();
  const producers = QueueProducers.open({ redisUrl: REDIS_URL, redisPrefix }, [QUEUES.eventsScheduler]);
  const reports = producers.of(QUEUES.eventsScheduler);
  closeFirst(() => producers.close());
  afterEach(async () => {
    await reports.queue.obliterate({ force: true });
  });

  const groupsOf = (runs: number) =>
    Array.from({ length: runs }, (_, run) => [0, 1, 2].map((n) => job(report(`run_${run}`, `evt_${run}_${n}`))));

  it('sends the groups of many callers together, as one batch job, each group whole and in its order', async () => {
    const adds = new GroupedAdds(reports);
    const groups = groupsOf(20);
    await Promise.all(groups.map((g) => adds.add(g)));
    const jobs = await reports.queue.getJobs(['wait'], 0, -1, true);
    expect(jobs.map((j) => j.name)).toEqual(['batch']);
    expect(unbatchedJobs(jobs).map((j) => j.id)).toEqual(groups.flat().map((j) => j.opts.jobId));
  });

  it('fails a group its schema refuses alone, to its caller, and adds the others in their order', async () => {
    const adds = new GroupedAdds(reports);
    const groups = groupsOf(6);
    const refused = [job(report('run_bad', 'evt_bad', 'x'.repeat(RUN_ERROR_MESSAGE_MAX + 1)))];
    const settled = await Promise.allSettled(
      [...groups.slice(0, 3), refused, ...groups.slice(3)].map((g) => adds.add(g)),
    );
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect((settled[3] as PromiseRejectedResult).reason).toBeInstanceOf(JobDataInvalidError);
    const jobs = await reports.queue.getJobs(['wait'], 0, -1, true);
    expect(unbatchedJobs(jobs).map((j) => j.id)).toEqual(groups.flat().map((j) => j.opts.jobId));
  });

  describe('with tracing on', () => {
    useTracing();

    it("gives each job its own caller's trace context, not the one of the caller that started the round", async () => {
      const adds = new GroupedAdds(reports);
      const spans = ['a', 'b', 'c'].map((name) => trace.getTracer('test').startSpan(`run ${name}`));
      await Promise.all(
        spans.map((span, i) =>
          context.with(trace.setSpan(context.active(), span), () => adds.add([job(report(`run_${i}`, `evt_${i}`))])),
        ),
      );
      spans.forEach((span) => span.end());
      const jobs = await reports.queue.getJobs(['wait'], 0, -1, true);
      const traceIds = jobs.flatMap((j) =>
        j.name === 'batch'
          ? (j.data as { jobs: { data: Record<string, { traceparent: string }> }[] }).jobs.map((i) => i.data)
          : [j.data as Record<string, { traceparent: string }>],
      );
      expect(traceIds.map((d) => d[JOB_TRACE_KEY]?.traceparent.split('-')[1])).toEqual(
        spans.map((s) => s.spanContext().traceId),
      );
    });
  });
});
