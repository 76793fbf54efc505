import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import type {
  ConnectorVersion,
  IdempotencyKey,
  RunCommand,
  RunError,
  RunEvent,
  RunReport,
  RunTrigger,
} from '@conduit/contracts';
import { RunEntity } from './run.entity.js';
import { runEventOf, type RunEventType } from './run.mapper.js';
import { closeNodes, decideReport, initialNodes, isFinal, type RunChanges } from './run-transitions.js';
import { markAndLockReported, rowOfRun, runInsertList, writeReportedRuns } from './run-rows.js';
import {
  addOutboxMessages,
  addRunCommand,
  addRunEvent,
  OUTBOX_INSERT_FROM_JSON,
  outboxJson,
  runCommandMessage,
  runEventMessage,
  withdrawRunCommand,
} from '../outbox/outbox-writer.js';
import { scheduledRunsMessages, type ScheduledRunRef } from '../outbox/scheduled-runs-message.js';
import { insertScheduledRuns, type ScheduledBatch, type ScheduledRunDraft } from './scheduled-run-rows.js';
import { SCHEDULER_LOGGER } from '../common/tokens.js';
import { FencedReportsCounter } from './fenced-reports.counter.js';
import { newId, entityValues, idempotencyColumns, isLockNotAvailable, preparedQuery } from '@conduit/service-kit';

export interface NewRun {
  tenantId: string;
  jobId: string;
  pipelineId: string;
  pipelineVersion: number;
  dag: Record<string, unknown>;
  /** The DAG's connectors at their versions as of the snapshot, for the run command (not stored with the run). */
  connectors?: ConnectorVersion[];
  trigger: RunTrigger;
  parameters: Record<string, unknown>;
  /** The client's Idempotency-Key and request fingerprint (Trigger Run). */
  idempotency?: IdempotencyKey;
}

export type ReportOutcome = 'applied' | 'duplicate' | 'stale' | 'fenced' | 'unknown_run';

export const ACTIVE_RUN_STATUSES = ['queued', 'running'] as const;

/**
 * The only writer of runs. Every accepted transition writes its `run.*` event to the outbox in the same
 * transaction; the `...Within` methods take the caller's transaction, which must hold the run row locked.
 */
@Injectable()
export class RunStateMachine {
  constructor(
    private readonly ds: DataSource,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    private readonly fencedReports: FencedReportsCounter,
  ) {}

  /** Inserts the run as `queued`, its command for the executors and its `run.queued` event. */
  async createWithin(m: EntityManager, input: NewRun): Promise<RunEntity> {
    const now = new Date();
    const run = this.newRun(m, input, now);
    await m.insert(RunEntity, entityValues<RunEntity>(run));
    await addRunCommand(m, this.runCommandOf(run, input.connectors), now);
    await addRunEvent(m, runEventOf(run, 'run.queued', now));
    return run;
  }

  /**
   * Trigger Run of a job that allows overlapping runs, as ONE statement (so no BEGIN or COMMIT of its own): the run,
   * its command and its `run.queued` event are inserted only while the job is still the tenant's at the revision the
   * caller read (every change of its policy or parameters bumps it), holding the job row shared to the end as the
   * transaction did. Answers null, having written nothing, when the job has moved on or its row is held exclusively
   * (an update of the job, the schedule clock taking its fire): the caller then makes the run the locked way. Never
   * waiting for the row here keeps the caller's deadline check the last thing before the commit: a statement that
   * waited could commit after the gateway answered 503 (docs/reliability.md).
   */
  async createWhileJobAt(input: NewRun, jobRevision: number): Promise<RunEntity | null> {
    const m = this.ds.manager;
    const now = new Date();
    const run = this.newRun(m, input, now);
    const list = runInsertList(m);
    const messages = [
      runCommandMessage(this.runCommandOf(run, input.connectors), now),
      runEventMessage(runEventOf(run, 'run.queued', now)),
    ];
    const inserted = await preparedQuery<{ id: string }>(
      m,
      `WITH job AS (SELECT 1 FROM jobs WHERE id = $1 AND tenant_id = $2 AND revision = $3 FOR SHARE NOWAIT),
            run AS (INSERT INTO runs (${list})
                    SELECT ${list} FROM json_populate_record(NULL::runs, $4::json) WHERE EXISTS (SELECT 1 FROM job)
                    RETURNING id),
            messages AS (${OUTBOX_INSERT_FROM_JSON('$5')} WHERE EXISTS (SELECT 1 FROM run))
       SELECT id FROM run`,
      [input.jobId, input.tenantId, jobRevision, JSON.stringify(rowOfRun(m, run)), outboxJson(messages)],
    ).catch((err: unknown) => {
      if (isLockNotAvailable(err)) return [];
      throw err;
    });
    return inserted.length === 1 ? run : null;
  }

  /**
   * createWithin for a batch of the schedule clock's runs (made ready before their fire time): one insert for the
   * runs (scheduled-run-rows.ts) and one for their outbox rows, one per 100 runs (scheduled-runs-message.ts). A run
   * whose tick already made one is skipped; answers the runs inserted.
   */
  async createScheduledWithin(
    m: EntityManager,
    batch: ScheduledBatch,
    drafts: readonly ScheduledRunDraft[],
  ): Promise<ScheduledRunRef[]> {
    const now = new Date();
    const runs = await insertScheduledRuns(m, batch, drafts, now);
    await addOutboxMessages(m, scheduledRunsMessages(runs, now));
    return runs;
  }

  private newRun(m: EntityManager, input: NewRun, now: Date): RunEntity {
    return m.create(RunEntity, {
      id: newId('run'),
      tenantId: input.tenantId,
      jobId: input.jobId,
      pipelineId: input.pipelineId,
      pipelineVersion: input.pipelineVersion,
      dag: input.dag,
      status: 'queued',
      trigger: input.trigger,
      parameters: input.parameters,
      attempt: 1,
      queuedAt: now,
      startedAt: null,
      finishedAt: null,
      error: null,
      nodes: initialNodes(input.dag),
      nodeColumns: {},
      stats: { rows_read: 0, rows_written: 0 },
      lastEventAt: now,
      tickId: null,
      requeues: 0,
      ...idempotencyColumns(input.idempotency),
      epoch: 0,
      claimedBy: null,
      claimAttempt: null,
      leaseUntil: null,
    });
  }

  /**
   * Queues the run's command again (the reaper's re-enqueue of a lost one), without connector versions: the executor
   * then resolves every connector as it is now.
   */
  async enqueueWithin(m: EntityManager, run: RunEntity, at: Date): Promise<void> {
    await addRunCommand(m, this.runCommandOf(run), at);
  }

  /** The command that queues `run` (what its outbox row carries), with the connector versions of its trigger. */
  runCommandOf(run: RunEntity, connectors?: ConnectorVersion[]): RunCommand {
    return {
      run_id: run.id,
      tenant_id: run.tenantId,
      job_id: run.jobId,
      pipeline_id: run.pipelineId,
      pipeline_version: run.pipelineVersion,
      dag: run.dag,
      parameters: run.parameters,
      trigger: run.trigger,
      ...(connectors && { connectors }),
    };
  }

  /** The active runs of a job, locked for update (the caller holds the job row, so no new one can appear). */
  async activeRunsWithin(m: EntityManager, jobId: string): Promise<RunEntity[]> {
    return m.find(RunEntity, {
      where: { jobId, status: In([...ACTIVE_RUN_STATUSES]) },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /**
   * queued|running -> canceled at once: nodes not over become canceled, the concurrency slot is free. The epoch moves
   * on, so the executor's renewal is refused and it stops at once.
   */
  async cancelWithin(m: EntityManager, run: RunEntity): Promise<RunEntity> {
    const now = new Date();
    await withdrawRunCommand(m, run.id);
    return this.fenceWithin(
      m,
      run,
      { status: 'canceled', finishedAt: now, nodes: closeNodes(run.nodes, now), lastEventAt: now },
      'run.canceled',
      now,
    );
  }

  /**
   * queued|running -> failed, for a run whose executor or queue job is gone (the reaper, the queue's failed events).
   * The epoch moves on: an executor that comes back can neither report nor claim the run again.
   */
  async failWithin(m: EntityManager, run: RunEntity, error: RunError): Promise<RunEntity> {
    const now = new Date();
    return this.fenceWithin(
      m,
      run,
      { status: 'failed', finishedAt: now, error, nodes: closeNodes(run.nodes, now), lastEventAt: now },
      'run.failed',
      now,
    );
  }

  /** Fails the run if it is still active (its own transaction). Answers whether it did. */
  async failIfActive(runId: string, error: RunError): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      const run = await m.findOne(RunEntity, { where: { id: runId }, lock: { mode: 'pessimistic_write' } });
      if (!run || isFinal(run)) return false;
      await this.failWithin(m, run, error);
      return true;
    });
  }

  /** Applies one executor report, at most once per event id. */
  async applyReport(report: RunReport): Promise<ReportOutcome> {
    const [outcome] = await this.applyReports([report]);
    return outcome!;
  }

  /**
   * Applies reports of any runs in one transaction (the reports taken in one turn): every run they name is locked once,
   * in id order, and each report is decided against its run as the earlier ones of that run left it, exactly as if
   * applied one by one in the order given. Two statements whatever the number of runs
   * (and BEGIN, COMMIT): the event ids recorded with the runs locked, then the runs' new states with their events.
   */
  async applyReports(reports: readonly RunReport[]): Promise<ReportOutcome[]> {
    if (reports.length === 0) return [];
    return this.ds.transaction(async (m) => {
      const keys = new Map<string, { id: string; tenantId: string }>();
      for (const r of reports) keys.set(`${r.tenant_id}/${r.run_id}`, { id: r.run_id, tenantId: r.tenant_id });
      const eventIds = reports.map((r) => r.event_id);
      const withDag = reports.some((r) => r.type === 'run.started');
      const { fresh, runs } = await markAndLockReported(m, eventIds, [...keys.values()], withDag);
      if (fresh.size === 0) return reports.map(() => 'duplicate' as const);
      const changed = new Set<RunEntity>();
      const events: RunEvent[] = [];
      const outcomes: ReportOutcome[] = [];
      for (const report of reports) {
        if (!fresh.delete(report.event_id)) {
          outcomes.push('duplicate');
          continue;
        }
        const run = runs.get(report.run_id);
        if (!run || run.tenantId !== report.tenant_id) {
          this.logger.warn({ run_id: report.run_id, event_id: report.event_id }, 'report for an unknown run ignored');
          outcomes.push('unknown_run');
          continue;
        }
        const outcome = this.decide(run, report, events);
        if (outcome === 'applied') changed.add(run);
        outcomes.push(outcome);
      }
      await writeReportedRuns(m, [...changed], events.map(runEventMessage));
      return outcomes;
    });
  }

  /** Decides one report against its run (changed in place when applied); an event it causes goes to `events`. */
  private decide(run: RunEntity, report: RunReport, events: RunEvent[]): ReportOutcome {
    const now = new Date();
    const decision = decideReport(run, report, now);
    if (!decision.apply && decision.fenced) {
      this.logger.warn(
        { run_id: run.id, event_id: report.event_id, type: report.type, reason: decision.reason },
        'report of a fenced execution refused',
      );
      this.fencedReports.inc();
      return 'fenced';
    }
    if (!decision.apply) {
      this.logger.info(
        { run_id: run.id, event_id: report.event_id, type: report.type, reason: decision.reason },
        'stale report ignored',
      );
      return 'stale';
    }
    Object.assign(run, decision.changes);
    if (decision.event) events.push(runEventOf(run, decision.event, now));
    return 'applied';
  }

  /**
   * A transition the scheduler decides on its own (not an executor's report): one compare-and-set on the run's epoch
   * that also bumps it, so no execution holding the old epoch can write after it.
   */
  private async fenceWithin(
    m: EntityManager,
    run: RunEntity,
    changes: RunChanges,
    event: RunEventType,
    at: Date,
  ): Promise<RunEntity> {
    const fenced = { ...changes, epoch: run.epoch + 1 };
    const result = await m.update(RunEntity, { id: run.id, epoch: run.epoch }, entityValues<RunEntity>(fenced));
    if (result.affected !== 1) throw new Error(`run ${run.id} changed epoch under a transition that held it locked`);
    const next = Object.assign(run, fenced);
    await addRunEvent(m, runEventOf(next, event, at));
    return next;
  }
}
