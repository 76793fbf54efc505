import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import {
  cursorLists,
  AppError,
  QUEUES,
  encodeCursor,
  isId,
  type Page,
  type ConnectorVersion,
  type Run,
  type RunDag,
  type RpcContext,
  type RunListQuery,
  type RunTriggerBody,
  type PipelineSnapshot,
} from '@conduit/contracts';
import { RunEntity } from './run.entity.js';
import { runOfRow, runSelectListWithoutDag } from './run-rows.js';
import { toRun, toRunDag } from './run.mapper.js';
import { RunStateMachine, type NewRun } from './run-state-machine.js';
import { RunCancelSignals } from './run-cancel-signals.js';
import { isFinal } from './run-transitions.js';
import { JobEntity } from '../jobs/job.entity.js';
import { PipelineSnapshots } from '../catalog-client/pipeline-snapshots.js';
import { TriggeredJobs, type TriggeredJob } from './triggered-jobs.js';
import { OutboxRelay, PAGE_BYTES, QueueProducers, fitPage, type SizedRow } from '@conduit/service-kit';
import { reachFaultPoint } from '../faults/fault-point.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import { assertBeforeDeadline, createOnce, cursorAfter, notFound, preparedQuery } from '@conduit/service-kit';
import type { SchedulerSettings } from '../scheduler-settings.js';
import { RUN_START_EVENTS_WAIT_MS } from '../outbox/scheduler-outbox.js';

@Injectable()
export class RunsService {
  constructor(
    private readonly ds: DataSource,
    private readonly machine: RunStateMachine,
    private readonly cancels: RunCancelSignals,
    private readonly snapshots: PipelineSnapshots,
    private readonly jobs: TriggeredJobs,
    private readonly relay: OutboxRelay,
    private readonly producers: QueueProducers,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {}

  /**
   * Trigger Run: snapshots the pipeline, applies the concurrency policy with the job row locked, and commits the
   * run with its outbox messages in one transaction. A retry with the same Idempotency-Key answers the run the first
   * request made.
   */
  async trigger(ctx: RpcContext, jobId: string, body: RunTriggerBody): Promise<Run> {
    // A retry with the key of a run already made answers that run: same id, the status it has now.
    const run = await createOnce(ctx.idempotency, {
      find: (key) => this.ds.manager.findOneBy(RunEntity, { tenantId: ctx.tenant_id, idempotencyKey: key }),
      create: () => this.createRun(ctx, jobId, body, 'manual'),
    });
    return toRun(run);
  }

  /**
   * Retry Run: a new run of the job (`trigger: retry`) with the parameters a finished run ran with, the pipeline as
   * it is now, under the job's concurrency policy as any trigger. 409 run_in_progress while that run has not ended.
   */
  async retry(ctx: RpcContext, jobId: string, runId: string): Promise<Run> {
    const run = await createOnce(ctx.idempotency, {
      find: (key) => this.ds.manager.findOneBy(RunEntity, { tenantId: ctx.tenant_id, idempotencyKey: key }),
      create: async () => {
        const retried = await this.loadRun(ctx.tenant_id, jobId, runId);
        if (!isFinal(retried))
          throw new AppError(
            'run_in_progress',
            `run ${runId} is ${retried.status}: a run is retried once it has ended (cancel it first to retry it now)`,
          );
        return this.createRun(ctx, jobId, { parameters: retried.parameters }, 'retry');
      },
    });
    return toRun(run);
  }

  /** A manual trigger's run (scheduled runs are made in batches by schedules/scheduled-runs.ts). */
  private async createRun(
    ctx: RpcContext,
    jobId: string,
    body: RunTriggerBody,
    trigger: ManualTrigger,
  ): Promise<RunEntity> {
    // Read beside the job: whether a snapshot held of the pipeline is still the catalog's.
    let generation = this.snapshots.generationOf(ctx.tenant_id);
    const held = this.jobs.heldCopy(ctx.tenant_id, jobId);
    let asked: { pipelineId: string; snapshot: PipelineSnapshot | null } | undefined;
    if (held) {
      const snapshot = await this.snapshots.get(ctx, held.pipelineId, generation);
      const created = snapshot?.valid ? await this.createFromHeld(ctx, held, body, trigger, snapshot) : null;
      if (created) return created;
      this.jobs.forget(ctx.tenant_id, jobId);
      asked = { pipelineId: held.pipelineId, snapshot };
    }
    // The job read, then its row held: should the job name another pipeline by then, the run would be one pipeline's
    // snapshot with another's job (its parameters); it is made again from fresh reads instead, the generation too
    // (the pipeline the job names now may have changed since the first was read).
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.createFromRead(ctx, jobId, body, trigger, generation, asked);
      } catch (err) {
        if (!(err instanceof JobRepointed)) throw err;
        if (attempt === REPOINTED_ATTEMPTS)
          throw new AppError('service_unavailable', `job ${jobId} kept changing while its run was made; trigger again`);
        asked = undefined;
        generation = this.snapshots.generationOf(ctx.tenant_id);
      }
    }
  }

  /** The run of the job as read now, under its concurrency policy (see createRun). */
  private async createFromRead(
    ctx: RpcContext,
    jobId: string,
    body: RunTriggerBody,
    trigger: ManualTrigger,
    generation: Promise<string | undefined>,
    asked: { pipelineId: string; snapshot: PipelineSnapshot | null } | undefined,
  ): Promise<RunEntity> {
    const job = await this.jobs.read(ctx.tenant_id, jobId);
    // The pipeline asked for just now, when the job still names it: one ask a trigger, also for an invalid pipeline.
    const snapshot =
      asked?.pipelineId === job.pipelineId ? asked.snapshot : await this.snapshots.get(ctx, job.pipelineId, generation);
    if (!snapshot)
      throw new AppError('pipeline_invalid', `pipeline ${job.pipelineId} of job ${job.id} no longer exists`);
    if (!snapshot.valid) {
      const first = snapshot.errors
        .slice(0, 3)
        .map((e) => `${e.code}: ${e.message}`)
        .join('; ');
      throw new AppError(
        'pipeline_invalid',
        `pipeline ${snapshot.id} does not validate (${first || 'no details'}); fix it, then trigger again`,
      );
    }
    const newRun = (parameters: Record<string, unknown>, jobIdOf: string) =>
      newRunOf(ctx, snapshot, body, trigger, parameters, jobIdOf);
    // A job that allows overlapping runs takes the run in one statement while it is still at the revision read; one
    // that has changed since (policy, parameters) or another policy takes the transaction below.
    if (job.concurrencyPolicy === 'allow') {
      assertBeforeDeadline(ctx);
      await this.faultCommitDelay();
      const created = await this.machine.createWhileJobAt(newRun(job.parameters, job.id), job.revision);
      if (created) return this.queued(created, job.id, [], snapshot.connectors);
    }
    let replaced: string[] = [];
    // A job that allows overlapping runs needs neither its row held alone nor its active runs: a shared hold keeps the
    // policy as read until commit, and its triggers no longer wait for each other or for its runs' reports. Should the
    // policy have changed since it was read, the transaction is made again holding the row alone.
    let shared = job.concurrencyPolicy === 'allow';
    const create = () =>
      this.ds.transaction(async (m) => {
        const locked = await m.findOne(JobEntity, {
          where: { id: job.id, tenantId: ctx.tenant_id },
          lock: { mode: shared ? 'pessimistic_read' : 'pessimistic_write' },
        });
        if (!locked) throw notFound('job', jobId);
        if (locked.pipelineId !== job.pipelineId) throw new JobRepointed();
        if (shared && locked.concurrencyPolicy !== 'allow') throw new PolicyChanged();
        const active = shared ? [] : await this.machine.activeRunsWithin(m, locked.id);
        if (active.length > 0 && locked.concurrencyPolicy === 'forbid') {
          throw new AppError(
            'run_in_progress',
            `job ${locked.id} already has run ${active[0]!.id} ${active[0]!.status}; its concurrency policy is forbid`,
          );
        }
        if (locked.concurrencyPolicy === 'replace') {
          for (const run of active) await this.machine.cancelWithin(m, run);
          replaced = active.map((r) => r.id);
        }
        const run = await this.machine.createWithin(m, newRun(locked.parameters, locked.id));
        assertBeforeDeadline(ctx);
        await this.faultCommitDelay();
        return run;
      });
    let created: RunEntity;
    try {
      created = await create();
    } catch (err) {
      if (!(err instanceof PolicyChanged)) throw err;
      shared = false;
      created = await create();
    }
    return this.queued(created, job.id, replaced, snapshot.connectors);
  }

  /**
   * The run of an `allow` job as this scheduler last read it, in one statement that inserts only while the job is
   * still at that revision (triggered-jobs.ts). Null when it is not: the trigger then reads the job again and answers
   * from what it reads, never from the held copy.
   */
  private async createFromHeld(
    ctx: RpcContext,
    job: TriggeredJob,
    body: RunTriggerBody,
    trigger: ManualTrigger,
    snapshot: PipelineSnapshot,
  ): Promise<RunEntity | null> {
    assertBeforeDeadline(ctx);
    await this.faultCommitDelay();
    const created = await this.machine.createWhileJobAt(
      newRunOf(ctx, snapshot, body, trigger, job.parameters, job.id),
      job.revision,
    );
    return created && this.queued(created, job.id, [], snapshot.connectors);
  }

  /** After a trigger's commit: the command queued, the relay woken, replaced runs' executors told. */
  private async queued(
    created: RunEntity,
    jobId: string,
    replaced: string[],
    connectors: ConnectorVersion[] | undefined,
  ): Promise<RunEntity> {
    reachFaultPoint('after_run_commit');
    this.queueAtOnce(created, connectors);
    if (replaced.length > 0) {
      // The runs it replaced end now: their events go at once (and this run's with them).
      this.relay.wake();
      await this.cancels.announce(replaced);
    } else this.relay.wakeWithin(RUN_START_EVENTS_WAIT_MS);
    this.logger.info({ run_id: created.id, job_id: jobId, trigger: 'manual', replaced }, 'run queued');
    return created;
  }

  /**
   * Adds the run's command to `runs` right after its commit, under the job id the relay's add of its outbox row uses
   * (BullMQ keeps the first of the two), so the run starts without waiting for the relay's turn. The outbox row still
   * guarantees the command: this add is not awaited, and never fails the trigger. While Redis is away it waits in
   * the connection's offline queue and goes when Redis is back (harmless even for a run canceled meanwhile: its claim
   * is refused). A process that relays nothing (background.relay off) queues nothing here either.
   */
  private queueAtOnce(run: RunEntity, connectors: ConnectorVersion[] | undefined): void {
    if (!this.settings.background.relay) return;
    // Two turns later, so the trigger's answer goes first (the RPC server sends a turn's replies from a setImmediate,
    // and the add parses and serializes the whole DAG); in a promise, since the producer's schema check throws
    // before it sends and must not fail a committed trigger.
    new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)))
      .then(() =>
        this.producers.of(QUEUES.runs).add('run', this.machine.runCommandOf(run, connectors), { jobId: run.id }),
      )
      .catch((err: unknown) =>
        this.logger.debug({ err, run_id: run.id }, 'run command not queued at once; the outbox relay queues it'),
      );
  }

  /** Test only (SCHEDULER_FAULT_COMMIT_DELAY_MS): the wait after the deadline check, before the commit. */
  private async faultCommitDelay(): Promise<void> {
    if (this.settings.faultCommitDelayMs > 0) await new Promise((r) => setTimeout(r, this.settings.faultCommitDelayMs));
  }

  /**
   * A page of `limit` runs at most, and of PAGE_BYTES of their parameters, nodes, columns and errors (its first one
   * whatever its size), as a page of pipelines: the sizes are read first (ids and lengths), then only the runs that
   * fit, without their DAGs. Fixed SQL; a run of the tenant's under the job means the job is there (its runs go with
   * it). An empty page reads the job for its 404.
   */
  async list(tenantId: string, jobId: string, query: RunListQuery, pageBytes = PAGE_BYTES): Promise<Page<Run>> {
    if (!isId('job', jobId)) throw notFound('job', jobId);
    const m = this.ds.manager;
    const after = cursorAfter(query.cursor, cursorLists.runs(jobId));
    // Unnamed: its optional filters are better planned for each call's values than once for all.
    const sized = await m.query<SizedRow[]>(
      `SELECT r.id, octet_length(r.parameters::text) + octet_length(r.nodes::text) + octet_length(r.node_columns::text)
              + coalesce(octet_length(r.error::text), 0) AS bytes FROM runs r
        WHERE r.tenant_id = $1 AND r.job_id = $2 AND ($3::text IS NULL OR r.status = $3) AND ($4::text IS NULL OR r.id < $4)
        ORDER BY r.id DESC LIMIT $5`,
      [tenantId, jobId, query.status ?? null, after ?? null, query.limit + 1],
    );
    if (sized.length === 0) await this.loadJob(tenantId, jobId);
    const { ids, more } = fitPage(sized, query.limit, pageBytes);
    const rows =
      ids.length === 0
        ? []
        : await preparedQuery(
            m,
            `SELECT ${runSelectListWithoutDag(m)} FROM runs r
              WHERE r.tenant_id = $1 AND r.job_id = $2 AND r.id = ANY($3::text[]) ORDER BY r.id DESC`,
            [tenantId, jobId, ids],
          );
    const last = ids.at(-1);
    return {
      data: rows.map((row) => toRun(runOfRow(m, row))),
      // After the last run that fit, even should it be deleted since.
      next_cursor: more && last !== undefined ? encodeCursor({ after: last, list: cursorLists.runs(jobId) }) : null,
    };
  }

  /**
   * Fixed SQL without the DAG the run ran (a client polls this while its run goes on: TypeORM's find built the query
   * again each time and read the whole DAG snapshot, which the answer does not show).
   */
  async get(tenantId: string, jobId: string, runId: string): Promise<Run> {
    if (!isId('job', jobId) || !isId('run', runId)) throw notFound('run', runId);
    const m = this.ds.manager;
    const [row] = await preparedQuery(
      m,
      `SELECT ${runSelectListWithoutDag(m)} FROM runs r WHERE r.tenant_id = $1 AND r.job_id = $2 AND r.id = $3`,
      [tenantId, jobId, runId],
    );
    if (!row) throw notFound('run', runId);
    return toRun(runOfRow(m, row));
  }

  /** The DAG the run ran, which the pipeline may have changed since; 404 as for the run. */
  async dag(tenantId: string, jobId: string, runId: string): Promise<RunDag> {
    return toRunDag(await this.loadRun(tenantId, jobId, runId));
  }

  /** 409 run_finished when over; else canceled at once, then the queue job removed and the executor told. */
  async cancel(tenantId: string, jobId: string, runId: string): Promise<Run> {
    await this.loadRun(tenantId, jobId, runId);
    const run = await this.ds.transaction(async (m) => {
      const locked = await m.findOne(RunEntity, {
        where: { id: runId, tenantId, jobId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!locked) throw notFound('run', runId);
      if (isFinal(locked)) throw new AppError('run_finished', `run ${runId} is already ${locked.status}`);
      return this.machine.cancelWithin(m, locked);
    });
    this.relay.wake();
    await this.cancels.announce([run.id]);
    return toRun(run);
  }

  private async loadJob(tenantId: string, jobId: string): Promise<JobEntity> {
    if (!isId('job', jobId)) throw notFound('job', jobId);
    const job = await this.ds.manager.findOneBy(JobEntity, { tenantId, id: jobId });
    if (!job) throw notFound('job', jobId);
    return job;
  }

  private async loadRun(tenantId: string, jobId: string, runId: string): Promise<RunEntity> {
    if (!isId('job', jobId) || !isId('run', runId)) throw notFound('run', runId);
    const run = await this.ds.manager.findOneBy(RunEntity, { tenantId, jobId, id: runId });
    if (!run) throw notFound('run', runId);
    return run;
  }
}

/** The job's concurrency policy changed between reading the job and holding its row. */
class PolicyChanged extends Error {}

/** The job names another pipeline than when it was read: the snapshot taken is not its pipeline's. */
class JobRepointed extends Error {}

/** Attempts, in all, of a trigger whose job keeps changing its pipeline under it, before it gives up (503). */
const REPOINTED_ATTEMPTS = 3;

/** The run a manual trigger makes of the job's pipeline as snapshotted, with the job's parameters and the body's. */
/** How a run not made by a schedule was asked for: Trigger Run, or Retry Run of an ended one. */
type ManualTrigger = 'manual' | 'retry';

function newRunOf(
  ctx: RpcContext,
  snapshot: PipelineSnapshot,
  body: RunTriggerBody,
  trigger: ManualTrigger,
  parameters: Record<string, unknown>,
  jobId: string,
): NewRun {
  return {
    tenantId: ctx.tenant_id,
    jobId,
    pipelineId: snapshot.id,
    pipelineVersion: snapshot.version,
    dag: snapshot.dag,
    ...(snapshot.connectors && { connectors: snapshot.connectors }),
    trigger,
    parameters: { ...parameters, ...(body.parameters ?? {}) },
    ...(ctx.idempotency && { idempotency: ctx.idempotency }),
  };
}
