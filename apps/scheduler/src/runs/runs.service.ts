import { Inject, Injectable } from '@nestjs/common';
import { DataSource, LessThan, type FindOptionsWhere } from 'typeorm';
import type { Logger } from 'pino';
import {
  AppError,
  isId,
  pageOf,
  type Page,
  type Run,
  type RunDag,
  type RpcContext,
  type RunListQuery,
  type RunTriggerBody,
} from '@conduit/contracts';
import { RunEntity } from './run.entity.js';
import { toRun, toRunDag } from './run.mapper.js';
import { RunStateMachine } from './run-state-machine.js';
import { RunCancelSignals } from './run-cancel-signals.js';
import { isFinal } from './run-transitions.js';
import { JobEntity } from '../jobs/job.entity.js';
import { PipelineSnapshots } from '../catalog-client/pipeline-snapshots.js';
import { OutboxRelay } from '@conduit/service-kit';
import { reachFaultPoint } from '../faults/fault-point.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import { assertBeforeDeadline, createOnce, cursorAfter, notFound } from '@conduit/service-kit';
import type { SchedulerSettings } from '../scheduler-settings.js';

@Injectable()
export class RunsService {
  constructor(
    private readonly ds: DataSource,
    private readonly machine: RunStateMachine,
    private readonly cancels: RunCancelSignals,
    private readonly snapshots: PipelineSnapshots,
    private readonly relay: OutboxRelay,
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
      create: () => this.createRun(ctx, jobId, body),
    });
    return toRun(run);
  }

  /** A manual trigger's run (scheduled runs are made in batches by schedules/scheduled-runs.ts). */
  private async createRun(ctx: RpcContext, jobId: string, body: RunTriggerBody): Promise<RunEntity> {
    const job = await this.loadJob(ctx.tenant_id, jobId);
    const snapshot = await this.snapshots.get(ctx, job.pipelineId);
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
        const run = await this.machine.createWithin(m, {
          tenantId: ctx.tenant_id,
          jobId: locked.id,
          pipelineId: snapshot.id,
          pipelineVersion: snapshot.version,
          dag: snapshot.dag,
          ...(snapshot.connectors && { connectors: snapshot.connectors }),
          trigger: 'manual',
          parameters: { ...locked.parameters, ...(body.parameters ?? {}) },
          ...(ctx.idempotency && { idempotency: ctx.idempotency }),
        });
        assertBeforeDeadline(ctx);
        if (this.settings.faultCommitDelayMs > 0)
          await new Promise((r) => setTimeout(r, this.settings.faultCommitDelayMs));
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
    reachFaultPoint('after_run_commit');
    this.relay.wake();
    if (replaced.length > 0) await this.cancels.announce(replaced);
    this.logger.info({ run_id: created.id, job_id: job.id, trigger: 'manual', replaced }, 'run queued');
    return created;
  }

  async list(tenantId: string, jobId: string, query: RunListQuery): Promise<Page<Run>> {
    const job = await this.loadJob(tenantId, jobId);
    const after = cursorAfter(query.cursor);
    const where: FindOptionsWhere<RunEntity> = { tenantId, jobId: job.id };
    if (query.status) where.status = query.status;
    if (after !== undefined) where.id = LessThan(after);
    const rows = await this.ds.manager.find(RunEntity, { where, order: { id: 'DESC' }, take: query.limit + 1 });
    return pageOf(rows.map(toRun), query.limit, (r) => r.id);
  }

  async get(tenantId: string, jobId: string, runId: string): Promise<Run> {
    return toRun(await this.loadRun(tenantId, jobId, runId));
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
