import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { MonitoringEvent, RunEvent, RunStatus } from '@conduit/contracts';
import { GroupCommit, OutboxRelay, failingAlone } from '@conduit/service-kit';
import { alertRules, jobKeyOf } from '../alerts/alert-rules.js';
import { MonitoringMetrics } from '../telemetry/monitoring-metrics.js';
import { recordAndApply } from './event-statement.js';
import { pooledStatements, transactionStatements, type SqlRunner } from '../common/sql-runner.js';

export type EventOutcome = 'applied' | 'duplicate' | 'stale';

/** Events applied together at most; the events worker takes as many jobs at once, so a burst fills one batch. */
export const MAX_EVENT_BATCH = 100;

interface BatchResult {
  outcomes: EventOutcome[];
  counted: RunStatus[];
  announced: boolean;
}

function isRunEvent(event: MonitoringEvent): event is RunEvent {
  return event.type.startsWith('run.');
}

/**
 * The batch cut into rounds in which each run has one event at most (a statement can move a fact once), in order:
 * a run's second event goes in the second round, and so on.
 */
function roundsOf(events: MonitoringEvent[]): MonitoringEvent[][] {
  const rounds: MonitoringEvent[][] = [];
  const seen = new Map<string, number>();
  for (const event of events) {
    const key = isRunEvent(event) ? event.run.id : event.event_id;
    const round = seen.get(key) ?? 0;
    seen.set(key, round + 1);
    (rounds[round] ??= []).push(event);
  }
  return rounds;
}

/**
 * Applies the events of `events.monitoring` at most once per event id: run events update the run's fact and, when
 * they move it, the job's alerts; `webhook.disabled` opens an alert on the webhook, `webhook.enabled` resolves it.
 * The events that arrive while a batch is written go together in the next one (group commit). A batch of run events
 * that touches no alert (no failure, no open alert on a succeeded run's job: nearly every batch) is one statement
 * (event-statement.ts), committed on its own; any other batch is applied in a transaction with its alerts. Each
 * event's outcome is the one applying the batch's events one by one, in order, would give.
 */
@Injectable()
export class MonitoringEvents {
  private readonly commits: GroupCommit<MonitoringEvent, EventOutcome | Error>;
  private readonly pooled: SqlRunner;

  constructor(
    private readonly ds: DataSource,
    private readonly relay: OutboxRelay,
    private readonly metrics: MonitoringMetrics,
  ) {
    this.pooled = pooledStatements(ds);
    // A batch that fails is applied again event by event, so that one event that cannot be applied fails alone.
    this.commits = new GroupCommit(
      failingAlone((events: MonitoringEvent[]) => this.applyBatch(events)),
      MAX_EVENT_BATCH,
    );
  }

  async apply(event: MonitoringEvent): Promise<EventOutcome> {
    const outcome = await this.commits.submit(event);
    if (outcome instanceof Error) throw outcome;
    return outcome;
  }

  private async applyBatch(events: MonitoringEvent[]): Promise<EventOutcome[]> {
    const result = (await this.withoutAlerts(events)) ?? (await this.ds.transaction((m) => this.withAlerts(m, events)));
    // After the commit: a rolled-back transaction neither counts nor announces.
    for (const status of result.counted) this.metrics.countRun(status);
    if (result.announced) this.relay.wake();
    return result.outcomes;
  }

  /**
   * The path of one statement per round (a round per event of a run: a run's queued, started and end often come in
   * one batch), each committed on its own, when the batch cannot touch an alert; null when the first round could
   * (nothing was written). A later round that could goes, with the rounds after it, to the transaction.
   */
  private async withoutAlerts(events: MonitoringEvent[]): Promise<BatchResult | null> {
    const plain = events.every((e) => isRunEvent(e) && e.type !== 'run.failed');
    if (!plain) return null;
    const rounds = roundsOf(events);
    const fresh = new Set<string>();
    const applied = new Set<MonitoringEvent>();
    let done = 0;
    try {
      for (; done < rounds.length; done++) {
        const round = rounds[done]!;
        const result = await recordAndApply(this.pooled, round, { unlessAlerting: true });
        if (!result.written) break;
        result.fresh.forEach((id) => fresh.add(id));
        this.appliedEvents(round, result.fresh, result.applied).forEach((e) => applied.add(e));
      }
      if (done === 0) return null;
      if (done === rounds.length) return this.resultOf(events, fresh, applied, false);
      const ahead = rounds.slice(0, done).flat();
      const first = this.resultOf(ahead, fresh, applied, false);
      const written = new Set(ahead);
      const rest = events.filter((e) => !written.has(e));
      const after = await this.ds.transaction((m) => this.withAlerts(m, rest));
      const outcomes = new Map([
        ...ahead.map((e, i) => [e, first.outcomes[i]!] as const),
        ...rest.map((e, i) => [e, after.outcomes[i]!] as const),
      ]);
      return {
        outcomes: events.map((e) => outcomes.get(e)!),
        counted: [...first.counted, ...after.counted],
        announced: after.announced,
      };
    } catch (err) {
      // The rounds written are committed, and a batch applied again sees their events as duplicates: count them now.
      for (const e of applied) if (isRunEvent(e)) this.metrics.countRun(e.run.status);
      throw err;
    }
  }

  private async withAlerts(m: EntityManager, events: MonitoringEvent[]): Promise<BatchResult> {
    const fresh = new Set<string>();
    const applied = new Set<MonitoringEvent>();
    const alerting = new Set<string>();
    for (const round of roundsOf(events)) {
      const done = await recordAndApply(transactionStatements(m), round, { unlessAlerting: false });
      done.fresh.forEach((id) => fresh.add(id));
      this.appliedEvents(round, done.fresh, done.applied).forEach((e) => applied.add(e));
      done.alerting.forEach((key) => alerting.add(key));
    }
    // A failure always takes its job's lock; a success only when its job has an open alert, or a failure before it in
    // this batch. A failure committing meanwhile in another transaction is as if it came after the success.
    for (const e of events) if (applied.has(e) && e.type === 'run.failed') alerting.add(jobKeyOf(e));
    let announced = false;
    const firsts = this.firstCopies(events, fresh);
    for (const event of events) {
      if (!firsts.has(event)) continue;
      if (event.type === 'webhook.disabled') announced = (await alertRules.webhookDisabled(m, event)) || announced;
      else if (event.type === 'webhook.enabled') announced = (await alertRules.webhookEnabled(m, event)) || announced;
      else if (!applied.has(event) || !alerting.has(jobKeyOf(event))) continue;
      else if (event.type === 'run.failed') announced = (await alertRules.runFailed(m, event)) || announced;
      else if (event.type === 'run.succeeded') announced = (await alertRules.runSucceeded(m, event)) || announced;
    }
    return this.resultOf(events, fresh, applied, announced);
  }

  /** The run events of a round that moved their fact: fresh, and their run among those the statement wrote. */
  private appliedEvents(round: MonitoringEvent[], fresh: Set<string>, runs: Set<string>): Set<MonitoringEvent> {
    return new Set(round.filter((e) => isRunEvent(e) && fresh.has(e.event_id) && runs.has(e.run.id)));
  }

  /** The first copy of each fresh event id in the batch (a second copy is a duplicate, as one after the other). */
  private firstCopies(events: MonitoringEvent[], fresh: Set<string>): Set<MonitoringEvent> {
    const left = new Set(fresh);
    return new Set(events.filter((e) => left.delete(e.event_id)));
  }

  private resultOf(
    events: MonitoringEvent[],
    fresh: Set<string>,
    applied: Set<MonitoringEvent>,
    announced: boolean,
  ): BatchResult {
    const firsts = this.firstCopies(events, fresh);
    return {
      outcomes: events.map((e) =>
        !firsts.has(e) ? 'duplicate' : !isRunEvent(e) || applied.has(e) ? 'applied' : 'stale',
      ),
      counted: events.filter((e): e is RunEvent => applied.has(e)).map((e) => e.run.status),
      announced,
    };
  }
}
