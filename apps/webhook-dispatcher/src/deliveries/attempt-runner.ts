import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { TenantSlots, newId } from '@conduit/service-kit';
import { DeliverySender, type SendResult } from './delivery-sender.js';
import type { ClaimedAttempt } from './claimed-attempt.js';
import { SuccessBatcher } from './success-batcher.js';
import { SendSlots } from './send-slots.js';
import { nextRetryDelay } from './retry-after.js';
import { DeliveryQueue } from './delivery-queue.js';
import { OutboxRelay } from '@conduit/service-kit';
import { SecretBox } from '../security/secret-box.js';
import { SecretOpenError } from '@conduit/secrets';
import { resolveWebhookTarget, UrlRefusedError } from '../security/url-policy.js';
import { signedHeaders } from '../security/webhook-signer.js';
import { SignerCache } from '../security/signer-cache.js';
import { disableWebhook } from '../webhooks/webhook-disabling.js';
import { returnedRows } from '../common/returned-rows.js';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

export type AttemptResult = 'succeeded' | 'retrying' | 'failed' | 'skipped';

/** How long a new event waits for room among the admitted attempts before its attempts are queued instead. */
const SLOT_WAIT_MS = 2000;
/**
 * Attempts admitted (written claimed by this process, sending or waiting for a POST slot) per POST slot: a burst is
 * written in batches several times the POSTs in flight, so a batch's two round trips are paid for many attempts.
 */
const ADMITTED_PER_SLOT = 5;
/** A claim older than the timeout and this margin belongs to a worker that died while sending. */
const CLAIM_MARGIN_MS = 30_000;
/**
 * The longest an admitted attempt may wait for a POST slot: waiting plus one POST (up to the timeout) then stays
 * well inside its claim, so the sweep never sends it again while this process is still sending it.
 */
const MAX_ADMITTED_WAIT_MS = CLAIM_MARGIN_MS / 2;

/** The attempt's claim was taken over (stale, re-claimed by the sweep) or its outcome already written: ours is dropped. */
class ClaimLostError extends Error {}

/**
 * Sends one attempt and records its outcome. The attempt row is claimed first, so a duplicate queue job does not
 * send it twice at once; a worker dying mid-send leaves a stale claim that the sweep queues again (at least once,
 * with the same webhook-id). First attempts usually arrive already claimed (written so by the planner) and are sent
 * at once in this process. Successes are recorded in batches; a failure writes the next attempt in the same
 * transaction as its own outcome.
 */
@Injectable()
export class AttemptRunner implements OnModuleDestroy {
  private readonly sender = new DeliverySender();
  private readonly successes: SuccessBatcher;
  /** Attempts admitted: taken by the planner, given back once an attempt is over. */
  private readonly slots: SendSlots;
  private readonly signers: SignerCache;
  /** Admitted attempts waiting for one of the `deliveryConcurrency` POST slots, oldest first. */
  private readonly waiting: ClaimedAttempt[] = [];
  private sending = 0;
  /** POSTs under way by tenant: one tenant's receivers that never answer must not hold every slot (nextWaiting). */
  private readonly tenantSlots: TenantSlots;
  /** The same for the attempts the queue's worker sends (retries, what the sweep queues): see takeQueueSlot. */
  private readonly queuedTenantSlots: TenantSlots;

  constructor(
    private readonly ds: DataSource,
    private readonly deliveries: DeliveryQueue,
    private readonly relay: OutboxRelay,
    secrets: SecretBox,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
  ) {
    this.successes = new SuccessBatcher(ds);
    this.slots = new SendSlots(settings.deliveryConcurrency * ADMITTED_PER_SLOT, SLOT_WAIT_MS);
    this.tenantSlots = new TenantSlots(Math.max(1, Math.floor(settings.deliveryConcurrency / 4)));
    this.queuedTenantSlots = new TenantSlots(Math.max(1, Math.floor(settings.deliveryConcurrency / 4)));
    this.signers = new SignerCache(secrets);
  }

  async onModuleDestroy(): Promise<void> {
    await this.successes.idle();
    this.sender.close();
  }

  /**
   * Admits up to `wanted` attempts about to be written already claimed, waiting a little for room for enough of them
   * (SendSlots); answers how many it got, and whether the wait ran out first (everything admitted still busy: a slow
   * receiver). Each admission is given back by sendClaimed once its attempt is over, or by releaseSlots.
   */
  async reserveSlots(wanted: number): Promise<{ granted: number; waitedOut: boolean }> {
    const granted = await this.slots.take(wanted);
    return { granted, waitedOut: granted < this.slots.enough(wanted) };
  }

  releaseSlots(count: number): void {
    this.slots.give(count);
  }

  /**
   * Sends attempts already claimed for this process, each admitted with reserveSlots, at most `deliveryConcurrency`
   * POSTs at once, oldest first. One whose run throws keeps its claim, so the sweep queues it again once the claim
   * is stale.
   */
  sendClaimed(attempts: ClaimedAttempt[]): void {
    this.waiting.push(...attempts);
    this.pump();
  }

  /**
   * The next attempt to send, its tenant's slot taken: the oldest of a tenant under its share of the POST slots (a
   * quarter); else, while more than a share of the slots is free, the oldest of any tenant: a tenant alone uses up to
   * three quarters, and the last quarter stays for another tenant's attempt, which then goes at once. An attempt
   * waiting too long is left to the sweep on the way.
   */
  private nextWaiting(): { c: ClaimedAttempt; releaseTenant: () => void } | undefined {
    const lending = this.tenantSlots.lends(this.settings.deliveryConcurrency);
    let oldest = -1;
    for (let i = 0; i < this.waiting.length;) {
      const c = this.waiting[i]!;
      if (Date.now() - c.claimed_at.getTime() > MAX_ADMITTED_WAIT_MS) {
        // Receivers held every slot for long (timeouts): rather than send it late while the sweep, seeing its claim
        // grow stale, sends it too, it is left to the sweep.
        this.waiting.splice(i, 1);
        this.slots.give(1);
        continue;
      }
      const releaseTenant = this.tenantSlots.take(c.tenant_id);
      if (releaseTenant) {
        this.waiting.splice(i, 1);
        return { c, releaseTenant };
      }
      if (oldest < 0) oldest = i;
      i++;
    }
    if (oldest < 0 || !lending) return undefined;
    const [c] = this.waiting.splice(oldest, 1);
    return { c: c!, releaseTenant: this.tenantSlots.take(c!.tenant_id, true)! };
  }

  /** Starts waiting attempts while POST slots are free, oldest first among the tenants under their fair share. */
  private pump(): void {
    while (this.sending < this.settings.deliveryConcurrency && this.waiting.length > 0) {
      const next = this.nextWaiting();
      if (!next) return;
      const { c, releaseTenant } = next;
      this.sending++;
      let held = true;
      const release = (): void => {
        if (!held) return;
        held = false;
        this.sending--;
        releaseTenant();
        this.pump();
      };
      void this.attempt(c, release)
        .catch((err: unknown) =>
          this.logger.warn({ err, delivery_id: c.id }, 'inline attempt failed; the sweep sends it again'),
        )
        .finally(() => {
          release();
          this.slots.give(1);
        });
    }
  }

  /** How old a claim must be before the sweep takes the attempt as lost. */
  get staleClaimMs(): number {
    return this.settings.timeoutMs + CLAIM_MARGIN_MS;
  }

  /**
   * A slot of the queue's worker for an attempt of `tenantId` (its release), or undefined when the attempt must wait:
   * the rule of the attempts sent at once (nextWaiting). The worker sends `deliveryConcurrency` at once and cannot see
   * whose jobs wait behind the one it took, so a tenant under its quarter always goes, and one past it only while
   * more than a quarter of the worker stays free: one tenant's silent receivers (its retries piling up, each holding
   * a slot for the whole timeout) never hold every other tenant's retries behind theirs.
   */
  takeQueueSlot(tenantId: string): (() => void) | undefined {
    return this.queuedTenantSlots.takeOrBorrow(tenantId, this.settings.deliveryConcurrency);
  }

  /** Sends an attempt taken from the queue (its slot taken with takeQueueSlot, where the job names its tenant). */
  async run(deliveryId: string): Promise<AttemptResult> {
    const claimed = await this.claim(deliveryId);
    if (!claimed) return 'skipped';
    return this.attempt(claimed);
  }

  /**
   * Sends a claimed attempt and records its outcome. `answered` is called once a 2xx came back: the POST slot is
   * free for the next attempt while a success waits for its batched write (its claim still covers it). A failure
   * keeps its POST slot until its own transaction is written, so a failing receiver cannot pile them up.
   */
  private async attempt(claimed: ClaimedAttempt, answered?: () => void): Promise<AttemptResult> {
    const startedAt = new Date();
    if (claimed.webhook_status !== 'active' && claimed.event_type !== 'ping') {
      // Disabled since this attempt was planned: it ends here, without a retry.
      return this.recordFailure(
        claimed,
        startedAt,
        { statusCode: null, latencyMs: 0, error: 'the webhook is disabled', retryAfterMs: null },
        false,
      );
    }
    const result = await this.send(claimed, startedAt);
    if (result.error === null) answered?.();
    const outcome =
      result.error === null
        ? await this.recordSuccess(claimed, result)
        : await this.recordFailure(claimed, startedAt, result, true);
    this.logger.debug(
      {
        delivery_id: claimed.id,
        webhook_id: claimed.webhook_id,
        event_id: claimed.event_id,
        attempt: claimed.attempt,
        status_code: result.statusCode,
        latency_ms: result.latencyMs,
        error: result.error,
        outcome,
      },
      'delivery attempt',
    );
    return outcome;
  }

  private async claim(deliveryId: string): Promise<ClaimedAttempt | undefined> {
    const now = Date.now();
    const [row] = returnedRows<ClaimedAttempt>(
      await this.ds.query(
        `UPDATE deliveries d SET claimed_at = $2
         FROM webhooks w, events e
         WHERE d.id = $1 AND d.status = 'pending' AND (d.claimed_at IS NULL OR d.claimed_at < $3)
           AND w.id = d.webhook_id AND e.event_id = d.event_id
         RETURNING d.id, d.tenant_id, d.webhook_id, d.event_id, d.event_type, d.attempt, d.claimed_at, w.url, w.status AS webhook_status, w.secret_sealed, e.body`,
        [deliveryId, new Date(now), new Date(now - this.staleClaimMs)],
      ),
    );
    return row;
  }

  private async send(c: ClaimedAttempt, at: Date): Promise<SendResult> {
    // The address is checked again now (DNS may have changed since the webhook was saved) and the connection pinned to it.
    let target;
    try {
      target = await resolveWebhookTarget(c.url, this.settings);
    } catch (err) {
      if (!(err instanceof UrlRefusedError)) throw err;
      return { statusCode: null, latencyMs: 0, error: `not sent: ${err.message}`, retryAfterMs: null };
    }
    let signer;
    try {
      signer = this.signers.signerOf(c.tenant_id, c.webhook_id, c.secret_sealed);
    } catch (err) {
      if (!(err instanceof SecretOpenError)) throw err;
      // Copied from another webhook, or under a key no longer configured: never sent unsigned; the owner sets it again.
      return {
        statusCode: null,
        latencyMs: 0,
        error: `not sent: ${err.message}; set the webhook's secret again`,
        retryAfterMs: null,
      };
    }
    return this.sender.send(target, signedHeaders(signer, c.event_id, at, c.body), c.body, this.settings.timeoutMs);
  }

  private async recordSuccess(c: ClaimedAttempt, result: SendResult): Promise<AttemptResult> {
    await this.successes.record({
      id: c.id,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      finishedAt: new Date(),
      claimedAt: c.claimed_at,
    });
    return 'succeeded';
  }

  private async recordFailure(
    c: ClaimedAttempt,
    startedAt: Date,
    result: SendResult,
    retryable: boolean,
  ): Promise<AttemptResult> {
    const now = new Date();
    let next: { id: string; delayMs: number } | null = null;
    let disabled = false;
    const lost = await this.ds
      .transaction(async (m) => {
        if (retryable && result.statusCode === 410) {
          disabled = await disableWebhook(m, c.webhook_id, 'gone', now);
        } else if (retryable) {
          const [w] = returnedRows<{ failing_since: Date; status: string }>(
            await m.query(
              `UPDATE webhooks SET failing_since = COALESCE(failing_since, $2) WHERE id = $1 RETURNING failing_since, status`,
              [c.webhook_id, startedAt],
            ),
          );
          if (
            w?.status === 'active' &&
            now.getTime() - new Date(w.failing_since).getTime() >= this.settings.disableAfterMs
          ) {
            disabled = await disableWebhook(m, c.webhook_id, 'failing', now);
          } else if (w?.status === 'active' || (w && c.event_type === 'ping')) {
            const delayMs = nextRetryDelay(this.settings.retryScheduleMs, c.attempt, result.retryAfterMs);
            if (delayMs !== null) next = { id: newId('delivery'), delayMs };
          }
        }
        const nextAt = next ? new Date(now.getTime() + next.delayMs) : null;
        const updated = returnedRows<{ id: string }>(
          await m.query(
            `UPDATE deliveries SET status = 'failed', status_code = $2, latency_ms = $3, error = $4, next_retry_at = $5, finished_at = $6
           WHERE id = $1 AND status = 'pending' AND claimed_at = $7 RETURNING id`,
            [c.id, result.statusCode, result.latencyMs, result.error, nextAt, now, c.claimed_at],
          ),
        );
        // Rolled back whole: the attempt that holds the claim now writes the outcome, and plans the retry if any.
        if (updated.length === 0) throw new ClaimLostError();
        if (next && nextAt) {
          await m.query(
            `INSERT INTO deliveries (id, tenant_id, webhook_id, event_id, event_type, attempt, status, due_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8) ON CONFLICT ON CONSTRAINT deliveries_attempt_key DO NOTHING`,
            [next.id, c.tenant_id, c.webhook_id, c.event_id, c.event_type, c.attempt + 1, nextAt, now],
          );
        }
      })
      .then(
        () => false,
        (err: unknown) => {
          if (err instanceof ClaimLostError) return true;
          throw err;
        },
      );
    if (lost) {
      this.logger.info({ delivery_id: c.id }, 'attempt outcome dropped: its claim was taken over');
      return 'skipped';
    }
    if (disabled) {
      this.logger.info({ webhook_id: c.webhook_id, status_code: result.statusCode }, 'webhook disabled');
      this.relay.wake();
    }
    const planned = next as { id: string; delayMs: number } | null;
    if (!planned) return 'failed';
    try {
      await this.deliveries.enqueue([{ ...planned, tenantId: c.tenant_id }]);
    } catch (err) {
      this.logger.warn({ err, delivery_id: planned.id }, 'could not queue a retry; the sweep queues it');
    }
    return 'retrying';
  }
}
