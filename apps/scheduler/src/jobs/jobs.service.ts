import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import {
  cursorLists,
  AppError,
  unknownPipelineError,
  encodeCursor,
  isId,
  type Job,
  type JobCreate,
  type JobListQuery,
  type JobUpdate,
  type Page,
  type RpcContext,
  type RunSummary,
  type Tagged,
} from '@conduit/contracts';
import { JobEntity } from './job.entity.js';
import { jobEtag, taggedJob, toJob } from './job.mapper.js';
import { RunEntity } from '../runs/run.entity.js';
import { toRunSummary } from '../runs/run.mapper.js';
import { RunStateMachine } from '../runs/run-state-machine.js';
import { RunCancelSignals } from '../runs/run-cancel-signals.js';
import { JobSchedules, nextFireOf } from '../schedules/job-schedules.js';
import { PipelineSnapshots } from '../catalog-client/pipeline-snapshots.js';
import { OutboxRelay, PAGE_BYTES, fitPage, type SizedRow } from '@conduit/service-kit';
import { SCHEDULER_LOGGER } from '../common/tokens.js';
import {
  newId,
  assertBeforeDeadline,
  assertIfMatch,
  createOnce,
  cursorAfter,
  entityValues,
  idempotencyColumns,
  isUniqueViolation,
  notFound,
} from '@conduit/service-kit';

const NAME_KEY = 'jobs_tenant_name_key';

@Injectable()
export class JobsService {
  constructor(
    private readonly ds: DataSource,
    private readonly machine: RunStateMachine,
    private readonly cancels: RunCancelSignals,
    private readonly schedules: JobSchedules,
    private readonly snapshots: PipelineSnapshots,
    private readonly relay: OutboxRelay,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
  ) {}

  async create(ctx: RpcContext, body: JobCreate): Promise<Tagged<Job>> {
    await this.assertPipeline(ctx, body.pipeline_id);
    const now = new Date();
    // A retry with the key of a job already made answers that job as it is now (and syncs its schedule again, in case
    // the first request ended between its commit and its sync).
    const row = await createOnce(ctx.idempotency, {
      find: (key) => this.ds.manager.findOneBy(JobEntity, { tenantId: ctx.tenant_id, idempotencyKey: key }),
      create: () =>
        this.nameGuarded(body.name, () =>
          this.ds.transaction(async (m) => {
            const job = m.create(JobEntity, {
              id: newId('job'),
              tenantId: ctx.tenant_id,
              ...this.fieldsOf(body),
              status: 'active',
              nextFireAt: nextFireOf({ ...this.fieldsOf(body), status: 'active' }, now),
              revision: 1,
              createdAt: now,
              updatedAt: now,
              ...idempotencyColumns(ctx.idempotency),
            });
            await m.insert(JobEntity, entityValues<JobEntity>(job));
            assertBeforeDeadline(ctx);
            return job;
          }),
        ),
    });
    this.syncSchedule(row);
    return taggedJob(row, (await this.lastRuns([row.id])).get(row.id) ?? null);
  }

  /**
   * A page of `limit` jobs at most, and of PAGE_BYTES of their parameters (its first one whatever its size), as a page
   * of pipelines: the sizes are read first (ids and lengths), then only the jobs that fit.
   */
  async list(tenantId: string, query: JobListQuery, pageBytes = PAGE_BYTES): Promise<Page<Job>> {
    const after = cursorAfter(query.cursor, cursorLists.jobs);
    const sizes = this.ds.manager
      .createQueryBuilder(JobEntity, 'j')
      .select('j.id', 'id')
      .addSelect('octet_length(j.parameters::text)', 'bytes')
      .where('j.tenant_id = :tenantId', { tenantId });
    if (query.pipeline_id !== undefined)
      sizes.andWhere('j.pipeline_id = :pipelineId', { pipelineId: query.pipeline_id });
    if (query.status !== undefined) sizes.andWhere('j.status = :status', { status: query.status });
    if (after !== undefined) sizes.andWhere('j.id < :after', { after });
    const sized = await sizes
      .orderBy('j.id', 'DESC')
      .limit(query.limit + 1)
      .getRawMany<SizedRow>();
    const { ids, more } = fitPage(sized, query.limit, pageBytes);
    const rows =
      ids.length === 0
        ? []
        : await this.ds.manager.find(JobEntity, { where: { tenantId, id: In(ids) }, order: { id: 'DESC' } });
    const lastRuns = await this.lastRuns(rows.map((r) => r.id));
    const last = ids.at(-1);
    return {
      data: rows.map((r) => toJob(r, lastRuns.get(r.id) ?? null)),
      // After the last job that fit, even should it be deleted since.
      next_cursor: more && last !== undefined ? encodeCursor({ after: last, list: cursorLists.jobs }) : null,
    };
  }

  async get(tenantId: string, id: string): Promise<Tagged<Job>> {
    const row = await this.load(this.ds.manager, tenantId, id);
    return taggedJob(row, (await this.lastRuns([row.id])).get(row.id) ?? null);
  }

  /** PUT: every mutable field is replaced (absent ones take their defaults); status changes only by pause/resume. */
  async update(ctx: RpcContext, id: string, body: JobUpdate, ifMatch?: string): Promise<Tagged<Job>> {
    const before = await this.load(this.ds.manager, ctx.tenant_id, id);
    if (body.pipeline_id !== before.pipelineId) await this.assertPipeline(ctx, body.pipeline_id);
    const row = await this.nameGuarded(body.name, () =>
      this.ds.transaction(async (m) => {
        const current = await this.load(m, ctx.tenant_id, id, true);
        assertIfMatch(ifMatch, jobEtag(current));
        const fields = this.fieldsOf(body);
        const now = new Date();
        // A new schedule fires from now on; an unchanged one keeps its next fire (which may be due this very moment).
        const rescheduled = fields.schedule !== current.schedule || fields.timezone !== current.timezone;
        const nextFireAt = rescheduled ? nextFireOf({ ...fields, status: current.status }, now) : current.nextFireAt;
        const changes = { ...fields, nextFireAt, revision: current.revision + 1, updatedAt: now };
        await m.update(JobEntity, { tenantId: ctx.tenant_id, id }, entityValues<JobEntity>(changes));
        return Object.assign(current, changes);
      }),
    );
    this.syncSchedule(row);
    return this.get(ctx.tenant_id, row.id);
  }

  /**
   * Cancels the job's active runs and deletes it (its runs go with it, and its schedule). With `ifMatch`, only the job
   * at that ETag (compared under the job's lock, so no update comes between).
   */
  async delete(tenantId: string, id: string, ifMatch?: string): Promise<null> {
    const canceled = await this.ds.transaction(async (m) => {
      const job = await this.load(m, tenantId, id, true);
      assertIfMatch(ifMatch, jobEtag(job));
      const active = await this.machine.activeRunsWithin(m, job.id);
      for (const run of active) await this.machine.cancelWithin(m, run);
      await m.delete(JobEntity, { tenantId, id: job.id });
      return active.map((r) => r.id);
    });
    this.relay.wake();
    if (canceled.length > 0) await this.cancels.announce(canceled);
    return null;
  }

  async pause(tenantId: string, id: string): Promise<Tagged<Job>> {
    return this.setStatus(tenantId, id, 'paused');
  }

  async resume(tenantId: string, id: string): Promise<Tagged<Job>> {
    return this.setStatus(tenantId, id, 'active');
  }

  /** How many of the tenant's jobs use the pipeline (the catalog refuses to delete a pipeline in use). */
  async usage(tenantId: string, pipelineId: string): Promise<{ jobs: number }> {
    return { jobs: await this.ds.manager.countBy(JobEntity, { tenantId, pipelineId }) };
  }

  private async setStatus(tenantId: string, id: string, status: JobEntity['status']): Promise<Tagged<Job>> {
    const row = await this.ds.transaction(async (m) => {
      const current = await this.load(m, tenantId, id, true);
      if (current.status === status) return current;
      const now = new Date();
      const changes = {
        status,
        nextFireAt: nextFireOf({ ...current, status }, now),
        revision: current.revision + 1,
        updatedAt: now,
      };
      await m.update(JobEntity, { tenantId, id }, changes);
      return Object.assign(current, changes);
    });
    this.syncSchedule(row);
    return this.get(tenantId, row.id);
  }

  private fieldsOf(
    body: JobCreate,
  ): Pick<
    JobEntity,
    'name' | 'description' | 'pipelineId' | 'schedule' | 'timezone' | 'concurrencyPolicy' | 'parameters'
  > {
    return {
      name: body.name,
      description: body.description ?? null,
      pipelineId: body.pipeline_id,
      schedule:
        body.schedule === undefined || body.schedule === null ? null : body.schedule.trim().replace(/\s+/g, ' '),
      timezone: body.timezone,
      concurrencyPolicy: body.concurrency_policy,
      parameters: body.parameters,
    };
  }

  /** The job's next fire was written with it; the schedule clock is told, in case it now comes sooner. */
  private syncSchedule(row: JobEntity): void {
    this.schedules.sync(row);
  }

  private async assertPipeline(ctx: RpcContext, pipelineId: string): Promise<void> {
    const snapshot = isId('pipeline', pipelineId) ? await this.snapshots.get(ctx, pipelineId) : null;
    if (!snapshot) {
      const error = unknownPipelineError(pipelineId);
      throw new AppError('unknown_pipeline', error.message, [error]);
    }
  }

  private async lastRuns(jobIds: string[]): Promise<Map<string, RunSummary>> {
    if (jobIds.length === 0) return new Map();
    // Only what a summary shows: a run's DAG snapshot and parameters would be read for each job of a page.
    const rows = await this.ds.manager
      .createQueryBuilder(RunEntity, 'r')
      .select(['r.id', 'r.jobId', 'r.status', 'r.trigger', 'r.queuedAt', 'r.finishedAt'])
      .distinctOn(['r.job_id'])
      .where({ jobId: In(jobIds) })
      .orderBy('r.job_id')
      .addOrderBy('r.id', 'DESC')
      .getMany();
    return new Map(rows.map((r) => [r.jobId, toRunSummary(r)]));
  }

  private async load(manager: EntityManager, tenantId: string, id: string, forUpdate = false): Promise<JobEntity> {
    if (!isId('job', id)) throw notFound('job', id);
    const row = await manager.findOne(JobEntity, {
      where: { tenantId, id },
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!row) throw notFound('job', id);
    return row;
  }

  /** A taken name shows up as the unique violation: concurrent creates of one name cannot both pass. */
  private async nameGuarded<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, NAME_KEY)) throw new AppError('name_taken', `a job named "${name}" already exists`);
      throw err;
    }
  }
}
