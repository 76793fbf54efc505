import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import type { QueueName } from '@conduit/contracts';
import { GroupCommit, failingAlone } from '../batching/group-commit.js';
import type { ProducedJob, QueueProducer } from './queue-producer.js';
import { withJobTrace } from './job-trace.js';
import { JobDataInvalidError } from './job-data-invalid-error.js';

/** Most callers' groups in one add (each group is a caller's jobs, e.g. one run's reports). */
const MAX_GROUPS = 50;

/**
 * Adds to a batchable queue from many callers at once (an executor's runs, each sending its reports or log lines):
 * the groups of jobs submitted while an add is on its way leave together in the next one, as `batch` jobs
 * (QueueProducer.addBatch), so a burst of runs costs one round trip and a few jobs instead of one job per report. A
 * caller's group stays whole and in its order; a group its schema refuses fails alone, to its caller, and the others
 * are added. Each job carries the trace context of its caller's add, not of whichever caller's add started the round.
 */
export class GroupedAdds<Q extends QueueName> {
  private readonly commits: GroupCommit<readonly ProducedJob<Q>[], Error | undefined>;

  constructor(readonly producer: QueueProducer<Q>) {
    // One add for every group; when a schema refuses one, each group again alone, so the refused one fails by itself.
    // Any other failure (Redis away) is every group's at once: each caller tries again on its own schedule, rather
    // than the groups being tried one after another, each waiting out the outage.
    this.commits = new GroupCommit(
      failingAlone(
        async (groups: (readonly ProducedJob<Q>[])[]) => {
          await context.with(ROOT_CONTEXT, () => producer.addBatch(groups.flat()));
          return groups.map(() => undefined);
        },
        (err) => err instanceof JobDataInvalidError,
      ),
      MAX_GROUPS,
    );
  }

  /** Resolves once `jobs` are on the queue; rejects with what kept them off it. */
  async add(jobs: readonly ProducedJob<Q>[]): Promise<void> {
    const result = await this.commits.submit(jobs.map((job) => ({ ...job, data: withJobTrace(job.data) })));
    if (result instanceof Error) throw result;
  }
}
