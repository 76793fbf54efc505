import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import { AppError, type PipelineSnapshot } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import type { ConcurrencyPolicy } from '@conduit/contracts';
import { ACTIVE_RUN_STATUSES, RunStateMachine } from '../runs/run-state-machine.js';
import {
  prepareScheduledBatch,
  type ScheduledBatch,
  type ScheduledRunDraft,
  type ScheduledRunInput,
} from '../runs/scheduled-run-rows.js';
import { RunCancelSignals } from '../runs/run-cancel-signals.js';
import { PipelineSnapshots } from '../catalog-client/pipeline-snapshots.js';
import { OutboxRelay } from '@conduit/service-kit';
import { nextFireTime } from './next-fire-time.js';
import { HopTimer } from './hop-timer.js';
import { SCHEDULER_LOGGER } from '../common/tokens.js';

/** The most due jobs one transaction takes. */
export const FIRE_BATCH = 2000;

/** The pipelines asked for during one pass of the clock, by tenant and id: the batches of a pass ask once. */
export type SnapshotCache = Map<string, Promise<PipelineSnapshot | null | Error>>;

/** One batch of the clock's pass. */
export interface FireRequest {
  /** The fire time the pass is for: the jobs due by then are taken; their runs are made once it has come. */
  at: Date;
  /** The most jobs to take (FIRE_BATCH at most). */
  limit: number;
  snapshots: SnapshotCache;
  /** Resolves once `at` has come; rejects when the clock stops, which rolls the batch back (its jobs keep their fire). */
  untilDue: (at: Date) => Promise<void>;
}

interface DueJob {
  id: string;
  tenant_id: string;
  pipeline_id: string;
  schedule: string;
  timezone: string;
  concurrency_policy: ConcurrencyPolicy;
  parameters: Record<string, unknown>;
  next_fire_at: Date;
}

/** A due job whose pipeline validates, with the run it makes unless its concurrency policy says otherwise. */
interface Candidate {
  job: DueJob;
  run: ScheduledRunDraft;
}

/** The run of a fire: `repeat:<job id>:<fire time in ms>`, unique, so a fire time makes one run at most. */
export function tickIdOf(jobId: string, fireAt: Date): string {
  return `repeat:${jobId}:${fireAt.getTime()}`;
}

/**
 * Makes the runs of the due jobs, a batch at a time, with trigger `schedule` and the same rules as Trigger Run
 * (the pipeline must validate; `forbid` skips a fire while a run is active, `replace` cancels it), in one transaction
 * per batch: the jobs are held (FOR UPDATE SKIP LOCKED), the runs and their outbox rows written in two statements,
 * and each job's next fire moved on from the fire time (or now, if later), so a fire missed while no replica ran is
 * made once.
 *
 * A batch may be taken shortly before its fire time: the jobs are held, their next fires moved on, their pipelines
 * asked for and their runs' rows built ahead, and the runs are written once the time has come. Nothing is visible
 * before the commit, so a crash or a stop in between leaves the jobs as they were; a change to one of these jobs (or
 * a Trigger Run of it) waits for the commit, and applies after the fire.
 */
@Injectable()
export class ScheduledRuns {
  constructor(
    private readonly ds: DataSource,
    private readonly machine: RunStateMachine,
    private readonly cancels: RunCancelSignals,
    private readonly snapshots: PipelineSnapshots,
    private readonly relay: OutboxRelay,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
  ) {}

  /** How many active jobs are due by `at`: the clock splits them among its lanes. */
  async countDue(at: Date): Promise<number> {
    const [row] = await this.ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM jobs WHERE status = 'active' AND next_fire_at IS NOT NULL AND next_fire_at <= $1`,
      [at],
    );
    return row?.n ?? 0;
  }

  /**
   * Fires one batch of the jobs due by `at`; answers how many jobs it took (`limit` when more may be due). The runs'
   * commands and events are in the outbox: the caller wakes the relay once its pass is over, so that publishing does
   * not hold up the batches still due.
   */
  async fireDue({ at, limit, snapshots, untilDue }: FireRequest): Promise<number> {
    const hops = new HopTimer();
    const { taken, created, replaced } = await this.ds.transaction(async (m) => {
      hops.lap('begin');
      const due = await m.query<DueJob[]>(
        `SELECT id, tenant_id, pipeline_id, schedule, timezone, concurrency_policy, parameters, next_fire_at FROM jobs
         WHERE status = 'active' AND next_fire_at IS NOT NULL AND next_fire_at <= $1
         ORDER BY next_fire_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [at, Math.min(limit, FIRE_BATCH)],
      );
      hops.lap('select');
      if (due.length === 0) return { taken: 0, created: 0, replaced: [] as string[] };
      await this.moveOn(m, due, at);
      hops.lap('move_on');
      const { batch, candidates } = await this.candidatesOf(due, snapshots);
      hops.lap('snapshots');
      await untilDue(at);
      hops.lap('wait');
      const { drafts, replaced } = await this.applyPolicies(m, candidates);
      hops.lap('policies');
      const runs = await this.machine.createScheduledWithin(m, batch, drafts);
      hops.lap('insert');
      return { taken: due.length, created: runs.length, replaced };
    });
    hops.lap('commit');
    if (replaced.length > 0) {
      this.relay.wake();
      await this.cancels.announce(replaced);
    }
    if (taken > 0)
      this.logger.info(
        { due: taken, runs: created, replaced: replaced.length, ms: hops.laps, late_ms: Date.now() - at.getTime() },
        'scheduled runs queued',
      );
    return taken;
  }

  /**
   * Each job's next fire after the one being made (or after now, when that is later: a fire missed while no replica
   * ran is made once); jobs sharing a schedule and zone (most of a batch) compute it once.
   */
  private async moveOn(m: EntityManager, due: DueJob[], at: Date): Promise<void> {
    const from = new Date(Math.max(Date.now(), at.getTime()));
    const computed = new Map<string, Date | null>();
    const next = due.map((j) => {
      const key = `${j.schedule}\u0000${j.timezone}`;
      if (!computed.has(key)) computed.set(key, nextFireTime(j.schedule, j.timezone, from));
      return computed.get(key) ?? null;
    });
    await m.query(
      `UPDATE jobs SET next_fire_at = v.next FROM unnest($1::text[], $2::timestamptz[]) AS v(id, next) WHERE jobs.id = v.id`,
      [due.map((j) => j.id), next],
    );
  }

  /**
   * The due jobs whose pipeline validates, each with its run's row made ready; the others' fires are skipped
   * (logged).
   */
  private async candidatesOf(
    due: DueJob[],
    cache: SnapshotCache,
  ): Promise<{ batch: ScheduledBatch; candidates: Candidate[] }> {
    const snapshots = await this.snapshotsOf(due, cache);
    const jobs: DueJob[] = [];
    const inputs: ScheduledRunInput[] = [];
    for (const job of due) {
      const snapshot = snapshots.get(`${job.tenant_id}/${job.pipeline_id}`);
      const skip =
        snapshot instanceof Error
          ? snapshot.message
          : !snapshot
            ? `pipeline ${job.pipeline_id} no longer exists`
            : !snapshot.valid
              ? `pipeline ${snapshot.id} does not validate`
              : null;
      if (skip || !snapshot || snapshot instanceof Error) {
        this.logger.warn({ job_id: job.id, tick: tickIdOf(job.id, job.next_fire_at), detail: skip }, 'tick skipped');
        continue;
      }
      jobs.push(job);
      inputs.push({
        tenantId: job.tenant_id,
        jobId: job.id,
        tickId: tickIdOf(job.id, job.next_fire_at),
        snapshot,
        parameters: job.parameters,
      });
    }
    const batch = prepareScheduledBatch(inputs);
    return { batch, candidates: jobs.map((job, i) => ({ job, run: batch.drafts[i]! })) };
  }

  /**
   * The runs to make now that the fire time has come: `forbid` skips a job with an active run, `replace` cancels its
   * active runs first. Asked at the fire time, not when the batch was taken: a run that ended in between counts as
   * ended.
   */
  private async applyPolicies(
    m: EntityManager,
    candidates: Candidate[],
  ): Promise<{ drafts: ScheduledRunDraft[]; replaced: string[] }> {
    const active = await this.jobsWithActiveRuns(
      m,
      candidates.filter((c) => c.job.concurrency_policy !== 'allow').map((c) => c.job.id),
    );
    const drafts: ScheduledRunDraft[] = [];
    const replaced: string[] = [];
    for (const { job, run } of candidates) {
      if (active.has(job.id) && job.concurrency_policy === 'forbid') {
        this.logger.info(
          { job_id: job.id, tick: run.tickId },
          'tick skipped: a run is active and the policy is forbid',
        );
        continue;
      }
      if (active.has(job.id) && job.concurrency_policy === 'replace') {
        for (const activeRun of await this.machine.activeRunsWithin(m, job.id))
          replaced.push((await this.machine.cancelWithin(m, activeRun)).id);
      }
      drafts.push(run);
    }
    return { drafts, replaced };
  }

  /** The pipelines of the batch as runs take them, each asked for once a pass; a failed ask is that pipeline's Error. */
  private async snapshotsOf(
    due: DueJob[],
    cache: SnapshotCache,
  ): Promise<Map<string, PipelineSnapshot | null | Error>> {
    for (const job of due) {
      const key = `${job.tenant_id}/${job.pipeline_id}`;
      if (!cache.has(key)) cache.set(key, this.askSnapshot(job));
    }
    const keys = [...new Set(due.map((j) => `${j.tenant_id}/${j.pipeline_id}`))];
    const answers = await Promise.all(keys.map((key) => cache.get(key)!));
    return new Map(keys.map((key, i) => [key, answers[i] as PipelineSnapshot | null | Error]));
  }

  private async askSnapshot(job: DueJob): Promise<PipelineSnapshot | null | Error> {
    const ctx = { tenant_id: job.tenant_id, scopes: ['read' as const], request_id: newId('request') };
    try {
      return await this.snapshots.get(ctx, job.pipeline_id);
    } catch (err) {
      // A refusal (the pipeline gone or invalid) skips these fires. An outage (the catalog silent or out of a
      // dependency: a 503) fails the batch, so it rolls back, its jobs keep their next fire and it is tried again.
      if (!(err instanceof AppError) || err.code === 'service_unavailable') throw err;
      return err;
    }
  }

  /**
   * Which of `jobIds` (held by this batch, so no new run can appear) have a queued or running run. Only jobs whose
   * policy is not `allow` are asked about: an `allow` job fires whatever runs.
   */
  private async jobsWithActiveRuns(m: EntityManager, jobIds: string[]): Promise<Set<string>> {
    if (jobIds.length === 0) return new Set();
    // The statuses written out, so the partial index of active runs applies.
    const statuses = ACTIVE_RUN_STATUSES.map((s) => `'${s}'`).join(', ');
    const rows = await m.query<{ job_id: string }[]>(
      `SELECT DISTINCT job_id FROM runs WHERE job_id = ANY($1) AND status IN (${statuses})`,
      [jobIds],
    );
    return new Set(rows.map((r) => r.job_id));
  }
}
