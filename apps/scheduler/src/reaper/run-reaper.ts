import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource, In, LessThan, Raw, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import { OutboxRelay, QueueProducers, schemaOf } from '@conduit/service-kit';
import { QUEUES, type RunError } from '@conduit/contracts';
import { RunEntity } from '../runs/run.entity.js';
import { RunStateMachine, ACTIVE_RUN_STATUSES } from '../runs/run-state-machine.js';
import { EXECUTOR_STOPPED_RESPONDING, lostExecutorError } from '../runs/run-errors.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

const BATCH = 200;
/** Queue job states in which the run is still on its way (waiting, delayed) or being executed (active). */
const ALIVE = new Set(['waiting', 'waiting-children', 'delayed', 'prioritized', 'active']);

export interface ReapResult {
  requeued: string[];
  failed: string[];
}

/**
 * Makes sure no run stays queued or running for ever. Looks at active runs silent for longer than
 * `runSilenceMs` whose command was published, and at their queue job:
 * - a queued run whose job is missing was lost: it is re-enqueued once, then failed;
 * - a job that failed, completed without a final report, or vanished under a running run: the run fails;
 * - a run still queued `queuedRunTimeoutMs` after it was queued while no executor listens on the runs queue: its
 *   job is removed and the run fails with `queue_timeout`, which frees its job's `forbid` slot for the next tick. A
 *   backlog behind busy executors is not failed: one tenant's long runs must not fail everyone else's waiting ones.
 * It acts only once the run's lease has expired, and fails a run by a compare-and-set that bumps its epoch, so an
 * executor that comes back (or a stalled job handed to another one) can neither report on the run nor claim it.
 * One replica sweeps at a time (a transaction-level advisory lock); the others skip the round.
 */
@Injectable()
export class RunReaper implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<unknown> | null = null;

  constructor(
    private readonly ds: DataSource,
    private readonly machine: RunStateMachine,
    private readonly producers: QueueProducers,
    private readonly relay: OutboxRelay,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.background.reaper) return;
    this.timer = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = this.sweep()
        .catch((err: unknown) => this.logger.warn({ err }, 'reaper pass failed'))
        .finally(() => (this.sweeping = null));
    }, this.settings.reaperIntervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
  }

  /** One pass; answers what it did (null when another replica holds the lock). */
  async sweep(): Promise<ReapResult | null> {
    const result = await this.ds.transaction(async (m) => {
      const [lock] = await m.query<{ ok: boolean }[]>(`SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok`, [
        `conduit.scheduler.reaper:${schemaOf(this.ds)}`,
      ]);
      if (!lock?.ok) return null;
      // Report ids are kept past any redelivery of BullMQ (failed reports live 7 days), then forgotten.
      await m.query(`DELETE FROM processed_events WHERE processed_at < now() - interval '8 days'`);
      const done: ReapResult = { requeued: [], failed: [] };
      const silentSince = new Date(Date.now() - this.settings.runSilenceMs);
      const runs = await m.find(RunEntity, {
        // A live lease means an executor renewed its claim lately: the run is not lost, whatever the queue job says.
        where: {
          status: In([...ACTIVE_RUN_STATUSES]),
          lastEventAt: LessThan(silentSince),
          leaseUntil: Raw((col) => `(${col} IS NULL OR ${col} <= clock_timestamp())`),
        },
        order: { lastEventAt: 'ASC' },
        take: BATCH,
        lock: { mode: 'pessimistic_write' },
      });
      const unpublished = await commandsPending(
        m,
        runs.map((r) => r.id),
      );
      const reportsWaiting = once(() => this.reportsWaiting());
      for (const run of runs) if (!unpublished.has(run.id)) await this.examine(m, run, done, reportsWaiting);
      return done;
    });
    if (result && (result.requeued.length > 0 || result.failed.length > 0)) {
      this.logger.warn(result, 'reaper acted on silent runs');
      this.relay.wake();
    }
    return result;
  }

  /**
   * An active job whose lock has expired: its executor died. Live executors move such a job back to the queue within
   * two of their stalled checks (withinStalledGrace); when none is left to do so, the run would stay `running` for ever.
   */
  private async lockLost(runId: string): Promise<boolean> {
    const queue = this.producers.of(QUEUES.runs).queue;
    const client = await queue.backend.client;
    return (await client.get(`${queue.toKey(runId)}:lock`)) === null;
  }

  /**
   * Whether executors' reports wait for a retry (a delayed job: none in normal operation, so a steady backlog never
   * puts the judgement off; after an outage the retries come back within 5 s of its end, job-options.ts).
   */
  private async reportsWaiting(): Promise<boolean> {
    return (await this.producers.of(QUEUES.eventsScheduler).queue.getDelayedCount()) > 0;
  }

  /** Whether the run's lease (else its last news) ended less than `stalledGraceMs` ago. */
  private withinStalledGrace(run: RunEntity): boolean {
    const lapsedAt = (run.leaseUntil ?? run.lastEventAt).getTime();
    return Date.now() - lapsedAt < this.settings.stalledGraceMs;
  }

  /** Whether any executor's worker is connected to the runs queue (BullMQ names its connections after the queue). */
  private async executorsListening(): Promise<boolean> {
    return (await this.producers.of(QUEUES.runs).queue.getWorkersCount()) > 0;
  }

  /** A run whose command was published (one still in the outbox is the relay's to publish: nothing to judge yet). */
  private async examine(
    m: EntityManager,
    run: RunEntity,
    done: ReapResult,
    reportsWaiting: () => Promise<boolean>,
  ): Promise<void> {
    const job = await this.producers.of(QUEUES.runs).queue.getJob(run.id);
    const state = job ? await job.getState() : 'missing';
    if (
      run.status === 'queued' &&
      state !== 'active' &&
      run.queuedAt.getTime() <= Date.now() - this.settings.queuedRunTimeoutMs &&
      !(await this.executorsListening())
    ) {
      // An executor taking the job meanwhile has its claim refused: the failure below bumps the epoch.
      await job?.remove().catch(() => undefined);
      await this.machine.failWithin(m, run, {
        code: 'queue_timeout',
        message: `no executor took the run within ${formatDuration(this.settings.queuedRunTimeoutMs)} of its trigger: none is running`,
      });
      done.failed.push(run.id);
      return;
    }
    if (ALIVE.has(state)) {
      if (state !== 'active' || !(await this.lockLost(run.id))) return;
      // Its executor died. While executors run, their stalled check moves the job back to the queue and one of them
      // takes the run over: the silence says nothing of that (a long node reports nothing, and lease renewals are no
      // news), so they get the grace from the lease's end before the run is failed.
      if (this.withinStalledGrace(run) && (await this.executorsListening())) return;
    }
    if (run.status === 'queued' && state === 'missing' && run.requeues < 1) {
      await m.update(RunEntity, { id: run.id }, { requeues: run.requeues + 1, lastEventAt: new Date() });
      await this.machine.enqueueWithin(m, run, new Date());
      done.requeued.push(run.id);
      return;
    }
    // A job that completed ran to its end: its final report may still wait for a try after an outage of this
    // database (job-options.ts). Judged once no report waits.
    if (state === 'completed' && (await reportsWaiting())) return;
    let error: RunError;
    if (state === 'failed') error = lostExecutorError(job?.failedReason);
    else if (run.status === 'queued' && state === 'missing')
      error = {
        code: 'run_lost',
        message: 'the run was lost before an executor took it, and again after it was re-enqueued',
      };
    else if (state === 'active')
      error = { code: 'executor_lost', message: `${EXECUTOR_STOPPED_RESPONDING} (no executor holds it any more)` };
    else
      error = {
        code: 'executor_lost',
        message: `${EXECUTOR_STOPPED_RESPONDING} (queue job ${state} without a final report)`,
      };
    await this.machine.failWithin(m, run, error);
    done.failed.push(run.id);
  }
}

/** `load`'s answer, asked for at most once. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () => (answer ??= load());
}

/**
 * The runs among `ids` whose command is still in the outbox: in its own row, or in a `scheduled_runs` row naming it.
 * One statement a sweep; the pending rows are few (the relay publishes them within moments of their commit).
 */
async function commandsPending(m: EntityManager, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await m.query<{ run_id: string }[]>(
    `SELECT run_id FROM outbox WHERE published_at IS NULL AND kind = 'run_command' AND run_id = ANY($1::text[])
     UNION
     SELECT r->>'run_id' FROM outbox, jsonb_array_elements(payload->'runs') AS r
      WHERE published_at IS NULL AND kind = 'scheduled_runs' AND r->>'run_id' = ANY($1::text[])`,
    [ids],
  );
  return new Set(rows.map((r) => r.run_id));
}

/** `1 h`, `90 s`: the timeout as an operator set it, in the unit it reads best in. */
function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}
