import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { WebhookPayload } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { AttemptRunner } from './attempt-runner.js';
import type { ClaimedAttempt } from './claimed-attempt.js';
import { DeliveryQueue } from './delivery-queue.js';
import { AGAIN, GroupCommit } from '@conduit/service-kit';
import { returnedRows } from '../common/returned-rows.js';
import { DISPATCHER_LOGGER } from '../common/tokens.js';
import { SubscribedTenants } from '../webhooks/subscribed-tenants.js';

/** A first attempt just written. */
export interface PlannedAttempt {
  id: string;
  webhook_id: string;
  created_at: Date;
}

/** A webhook an event goes to, with what sending to it needs. */
interface Target {
  id: string;
  url: string;
  status: 'active' | 'disabled';
  secret_sealed: string;
}

/** An event to plan: to its tenant's subscribed webhooks (fan-out), or to the targets given (a ping). */
interface PlanRequest {
  tenantId: string;
  payload: WebhookPayload;
  targets?: Target[];
}

interface Attempt {
  id: string;
  request: number;
  target: Target;
  claimed: boolean;
}

/** Events planned together at most; the events worker takes as many at once, so a burst fills a batch. */
export const MAX_PLAN_BATCH = 200;

/**
 * Turns events into attempts: each event's body and one pending first attempt per target webhook are written in one
 * statement, for all the events that arrived while the previous batch was written (group commit: one lookup and one
 * write per batch instead of per event). As many attempts as this process has free sending slots are written already
 * claimed and sent at once (no claim round trip, no queue hop). Events whose attempts find no free slot wait for the
 * next batch (their queue jobs stay active, so the backlog stays in events.webhooks); only the attempts of an event
 * with more webhooks than free slots, or of any event once the slot wait has timed out, are queued. The event id is the events
 * table's key, so an event seen twice plans nothing the second time (consumers are idempotent on the event id). An
 * attempt written but not queued (a crash, Redis down), or claimed by a process that died, is queued by the sweep.
 */
@Injectable()
export class DeliveryPlanner {
  private readonly commits: GroupCommit<PlanRequest, PlannedAttempt[] | Error>;

  constructor(
    private readonly ds: DataSource,
    private readonly runner: AttemptRunner,
    private readonly deliveries: DeliveryQueue,
    private readonly subscribed: SubscribedTenants,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
  ) {
    this.commits = new GroupCommit((requests) => this.planBatch(requests), MAX_PLAN_BATCH);
  }

  /** One attempt for every active webhook of the tenant subscribed to the event's kind. */
  fanOut(tenantId: string, payload: WebhookPayload): Promise<PlannedAttempt[]> {
    return this.submit({ tenantId, payload });
  }

  /** One attempt for that webhook alone (the `ping` of the test operation). */
  async single(tenantId: string, webhookId: string, payload: WebhookPayload): Promise<PlannedAttempt[]> {
    const targets = await this.ds.query<Target[]>(
      `SELECT id, url, status, secret_sealed FROM webhooks WHERE id = $1 AND tenant_id = $2`,
      [webhookId, tenantId],
    );
    return this.submit({ tenantId, payload, targets });
  }

  private async submit(request: PlanRequest): Promise<PlannedAttempt[]> {
    const planned = await this.commits.submit(request);
    if (planned instanceof Error) throw planned;
    return planned;
  }

  /** A batch that fails is planned again event by event, so that one bad event fails alone. */
  private async planBatch(requests: PlanRequest[]): Promise<(PlannedAttempt[] | Error | typeof AGAIN)[]> {
    try {
      return await this.plan(requests);
    } catch (err) {
      if (requests.length === 1) return [err instanceof Error ? err : new Error(String(err))];
      const alone = [];
      for (const request of requests) alone.push((await this.planBatch([request]))[0]!);
      return alone;
    }
  }

  private async plan(requests: PlanRequest[]): Promise<(PlannedAttempt[] | typeof AGAIN)[]> {
    const targets = await this.targetsOf(requests);
    const total = targets.reduce((n, t) => n + t.length, 0);
    // Nothing subscribes: the event is not even recorded (a copy arriving later may find a new subscriber, which is harmless).
    if (total === 0) return requests.map(() => []);
    const { granted: slots, waitedOut } = await this.runner.reserveSlots(total);
    // Every slot stayed busy (a slow receiver): rather than wait on, the attempts without a slot are queued.
    const deferred = waitedOut ? new Set<number>() : this.deferredBeyond(targets, slots);
    const kept = requests.map((_, i) => i).filter((i) => !deferred.has(i));
    const planned = await this.planWithSlots(
      kept.map((i) => requests[i] as PlanRequest),
      kept.map((i) => targets[i] as Target[]),
      slots,
    );
    const results: (PlannedAttempt[] | typeof AGAIN)[] = requests.map(() => AGAIN);
    kept.forEach((i, k) => (results[i] = planned[k] as PlannedAttempt[]));
    return results;
  }

  /**
   * The events to leave for the next batch: those whose attempts do not fit in the slots taken, after the first event
   * that has targets (which is always planned, its extra attempts queued, so that a batch always moves).
   */
  private deferredBeyond(targets: Target[][], slots: number): Set<number> {
    const deferred = new Set<number>();
    let room = slots;
    let first = true;
    targets.forEach((list, i) => {
      if (list.length === 0) return;
      if (!first && list.length > room) deferred.add(i);
      else room -= list.length;
      first = false;
    });
    return deferred;
  }

  private async planWithSlots(
    requests: PlanRequest[],
    targets: Target[][],
    slots: number,
  ): Promise<PlannedAttempt[][]> {
    const now = new Date();
    const bodies = requests.map((r) => JSON.stringify(r.payload));
    let claimable = slots;
    const attempts: Attempt[] = targets.flatMap((list, request) =>
      list.map((target) => ({ id: newId('delivery'), request, target, claimed: claimable-- > 0 })),
    );
    let written: Set<string>;
    try {
      written = await this.write(requests, bodies, targets, attempts, now);
    } catch (err) {
      this.runner.releaseSlots(slots);
      throw err;
    }
    const planned = attempts.filter((a) => written.has(a.id));
    const claimed = planned.filter((a) => a.claimed);
    this.runner.releaseSlots(slots - claimed.length);
    this.runner.sendClaimed(
      claimed.map((a) => this.claimedAttempt(requests[a.request] as PlanRequest, bodies[a.request] as string, a, now)),
    );
    try {
      await this.deliveries.enqueue(
        planned
          .filter((a) => !a.claimed)
          .map((a) => ({ id: a.id, tenantId: (requests[a.request] as PlanRequest).tenantId, delayMs: 0 })),
      );
    } catch (err) {
      this.logger.warn(
        { err, event_ids: requests.map((r) => r.payload.id) },
        'could not queue new deliveries; the sweep queues them',
      );
    }
    return requests.map((_, i) =>
      planned.filter((a) => a.request === i).map((a) => ({ id: a.id, webhook_id: a.target.id, created_at: now })),
    );
  }

  /**
   * The targets of each request, in one query for all the fan-outs of the batch, and none for a tenant without an
   * active webhook (SubscribedTenants: only its one-row version read when no tenant of the batch has one). A second
   * copy of an event within the batch gets none: only one copy may plan.
   */
  private async targetsOf(requests: PlanRequest[]): Promise<Target[][]> {
    const seen = new Set<string>();
    const firsts = requests.map((r) => !seen.has(r.payload.id) && Boolean(seen.add(r.payload.id)));
    const fanOuts = requests.some((r, i) => firsts[i] && !r.targets);
    const subscribed = fanOuts ? await this.subscribed.current() : null;
    const lookups = requests
      .map((r, i) => (firsts[i] && !r.targets && (!subscribed || subscribed.has(r.tenantId)) ? i : -1))
      .filter((i) => i >= 0);
    const found = new Map<number, Target[]>();
    if (lookups.length > 0) {
      const rows = await this.ds.query<(Target & { i: number })[]>(
        `SELECT r.i::int AS i, w.id, w.url, w.status, w.secret_sealed
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(tenant_id, type, i)
           JOIN webhooks w ON w.tenant_id = r.tenant_id AND w.status = 'active' AND w.events @> ARRAY[r.type]`,
        [lookups.map((i) => requests[i]!.tenantId), lookups.map((i) => requests[i]!.payload.type)],
      );
      for (const { i, ...target } of rows) {
        const request = lookups[i - 1] as number;
        found.set(request, [...(found.get(request) ?? []), target]);
      }
    }
    return requests.map((r, i) => (firsts[i] ? (r.targets ?? found.get(i) ?? []) : []));
  }

  /**
   * One statement, so each event and its attempts commit together; an event already recorded plans nothing, and the
   * join skips a webhook deleted meanwhile. Answers the ids of the attempts written.
   */
  private async write(
    requests: PlanRequest[],
    bodies: string[],
    targets: Target[][],
    attempts: Attempt[],
    now: Date,
  ): Promise<Set<string>> {
    const events = requests.map((_, i) => i).filter((i) => (targets[i] as Target[]).length > 0);
    const rows = returnedRows<{ id: string }>(
      await this.ds.query(
        `WITH e AS (
           INSERT INTO events (event_id, tenant_id, type, body, created_at)
           SELECT v.event_id, v.tenant_id, v.type, v.body, $5 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS v(event_id, tenant_id, type, body)
           ON CONFLICT (event_id) DO NOTHING RETURNING event_id, tenant_id, type
         )
         INSERT INTO deliveries (id, tenant_id, webhook_id, event_id, event_type, attempt, status, due_at, claimed_at, created_at)
         SELECT a.id, e.tenant_id, a.webhook_id, e.event_id, e.type, 1, 'pending', $5, CASE WHEN a.claimed THEN $5::timestamptz END, $5
           FROM unnest($6::text[], $7::text[], $8::text[], $9::boolean[]) AS a(id, event_id, webhook_id, claimed)
           JOIN e ON e.event_id = a.event_id
           JOIN webhooks w ON w.id = a.webhook_id
         RETURNING id`,
        [
          events.map((i) => requests[i]!.payload.id),
          events.map((i) => requests[i]!.tenantId),
          events.map((i) => requests[i]!.payload.type),
          events.map((i) => bodies[i]),
          now,
          attempts.map((a) => a.id),
          attempts.map((a) => requests[a.request]!.payload.id),
          attempts.map((a) => a.target.id),
          attempts.map((a) => a.claimed),
        ],
      ),
    );
    return new Set(rows.map((r) => r.id));
  }

  private claimedAttempt(request: PlanRequest, body: string, a: Attempt, claimedAt: Date): ClaimedAttempt {
    return {
      id: a.id,
      tenant_id: request.tenantId,
      webhook_id: a.target.id,
      event_id: request.payload.id,
      event_type: request.payload.type,
      attempt: 1,
      claimed_at: claimedAt,
      url: a.target.url,
      webhook_status: a.target.status,
      secret_sealed: a.target.secret_sealed,
      body,
    };
  }
}
