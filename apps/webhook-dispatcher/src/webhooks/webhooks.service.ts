import { setTimeout as delay } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, LessThan, type EntityManager, type FindOptionsWhere } from 'typeorm';
import {
  cursorLists,
  isId,
  pageOf,
  validationFailed,
  type Delivery,
  type Page,
  type RpcData,
  type Tagged,
  type Webhook,
  type WebhookCreate,
  type WebhookPayload,
  type WebhookUpdate,
} from '@conduit/contracts';
import { WebhookEntity } from './webhook.entity.js';
import { taggedWebhook, toWebhook, webhookEtag } from './webhook.mapper.js';
import { webhookInputErrors } from './webhook-input.js';
import { SecretBox, sealWebhookSecret } from '../security/secret-box.js';
import { openFieldsFromTransit } from '@conduit/secrets';
import { DeliveryPlanner } from '../deliveries/delivery-planner.js';
import { OutboxRelay, WebhookTenants } from '@conduit/service-kit';
import { announceReenabled } from './webhook-disabling.js';
import { DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';
import {
  newId,
  type CreateContext,
  assertBeforeDeadline,
  assertIfMatch,
  createOnce,
  cursorAfter,
  entityValues,
  idempotencyColumns,
  notFound,
} from '@conduit/service-kit';

type WebhookListQuery = RpcData<'webhooks.webhooks.list'>['query'];

/** Tries of a create's second add of its tenant to the publishers' set (webhook-tenants.ts). */
const ADMIT_ATTEMPTS = 3;

@Injectable()
export class WebhooksService {
  constructor(
    private readonly ds: DataSource,
    private readonly secrets: SecretBox,
    private readonly planner: DeliveryPlanner,
    private readonly relay: OutboxRelay,
    private readonly tenants: WebhookTenants,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
  ) {}

  async create(tenantId: string, sealedBody: WebhookCreate, ctx: CreateContext = {}): Promise<Tagged<Webhook>> {
    // The event publishers send this tenant's events from before the row can match one (webhook-tenants.ts); again
    // once it is committed (or found, for a retry), for a set lost (a restart, its expiry) and written again from a
    // table without the row in between.
    await this.tenants.admit(tenantId);
    // A retry with the key of a webhook already made answers that webhook as it is now (never its secret).
    let made = false;
    const row = await createOnce(ctx.idempotency, {
      find: (key) => this.ds.manager.findOneBy(WebhookEntity, { tenantId, idempotencyKey: key }),
      create: async () => {
        const inserted = await this.insertNew(tenantId, sealedBody, ctx);
        made = true;
        return inserted;
      },
    });
    // insertNew added it once committed; a webhook found was made by an earlier request.
    if (!made) await this.admitCommitted(tenantId);
    return taggedWebhook(row);
  }

  /** The second add, tried three times: a create is never answered while its tenant's events could be left out. */
  private async admitCommitted(tenantId: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.tenants.admit(tenantId);
      } catch (err) {
        if (attempt >= ADMIT_ATTEMPTS) throw err;
        await delay(100 * attempt);
      }
    }
  }

  private async insertNew(tenantId: string, sealedBody: WebhookCreate, ctx: CreateContext): Promise<WebhookEntity> {
    const body = this.fromTransit(tenantId, sealedBody);
    await this.assertInput(body);
    const now = new Date();
    const id = newId('webhook');
    const row = this.ds.manager.create(WebhookEntity, {
      id,
      tenantId,
      url: body.url,
      events: body.events,
      description: body.description ?? null,
      secretSealed: sealWebhookSecret(this.secrets, tenantId, id, body.secret),
      status: 'active',
      disabledReason: null,
      failingSince: null,
      revision: 1,
      createdAt: now,
      updatedAt: now,
      ...idempotencyColumns(ctx.idempotency),
    });
    await this.ds.transaction(async (m) => {
      await m.insert(WebhookEntity, entityValues<WebhookEntity>(row));
      assertBeforeDeadline(ctx);
    });
    await this.admitCommitted(tenantId).catch(async (err: unknown) => {
      // Undone, so that the 503 changes nothing (and a retry makes it anew), rather than a webhook that may miss events.
      await this.ds.manager.delete(WebhookEntity, { tenantId, id }).catch(() => undefined);
      throw err;
    });
    return row;
  }

  async list(tenantId: string, query: WebhookListQuery): Promise<Page<Webhook>> {
    const after = cursorAfter(query.cursor, cursorLists.webhooks);
    const where: FindOptionsWhere<WebhookEntity> = { tenantId };
    if (after !== undefined) where.id = LessThan(after);
    const rows = await this.ds.manager.find(WebhookEntity, { where, order: { id: 'DESC' }, take: query.limit + 1 });
    return pageOf(rows.map(toWebhook), query.limit, (w) => w.id, cursorLists.webhooks);
  }

  async get(tenantId: string, id: string): Promise<Tagged<Webhook>> {
    return taggedWebhook(await this.load(this.ds.manager, tenantId, id));
  }

  /** PATCH: only the fields sent change. `status: active` re-enables (and forgets the failures), `disabled` pauses. */
  async update(tenantId: string, id: string, sealedBody: WebhookUpdate, ifMatch?: string): Promise<Tagged<Webhook>> {
    const body = this.fromTransit(tenantId, sealedBody);
    await this.load(this.ds.manager, tenantId, id);
    await this.assertInput(body);
    let reenabled = false;
    const row = await this.ds.transaction(async (m) => {
      const current = await this.load(m, tenantId, id, true);
      assertIfMatch(ifMatch, webhookEtag(current));
      const changes: Partial<WebhookEntity> = {};
      if (body.url !== undefined && body.url !== current.url) changes.url = body.url;
      if (body.events !== undefined && !sameEvents(body.events, current.events)) changes.events = body.events;
      if (body.description !== undefined && body.description !== current.description)
        changes.description = body.description;
      // A secret sent is a rotation, even of the same value (the stored one is sealed, not compared).
      if (body.secret !== undefined) changes.secretSealed = sealWebhookSecret(this.secrets, tenantId, id, body.secret);
      if (body.status === 'active' && current.status !== 'active')
        Object.assign(changes, { status: 'active', disabledReason: null, failingSince: null });
      if (body.status === 'disabled' && current.status !== 'disabled')
        Object.assign(changes, { status: 'disabled', disabledReason: 'manual' });
      // A PATCH that changes nothing (`{}`, or the values the webhook has) leaves it as it is: same revision, same
      // updated_at, same ETag.
      if (Object.keys(changes).length === 0) return current;
      Object.assign(changes, { revision: current.revision + 1, updatedAt: new Date() });
      await m.update(WebhookEntity, { tenantId, id }, entityValues<WebhookEntity>(changes));
      // Only a webhook the dispatcher disabled (410, failing) has a webhook_disabled alert to end.
      if (changes.status === 'active' && current.disabledReason !== 'manual') {
        await announceReenabled(m, tenantId, id, changes.url ?? current.url, changes.updatedAt as Date);
        reenabled = true;
      }
      return Object.assign(current, changes);
    });
    if (reenabled) this.relay.wake();
    return taggedWebhook(row);
  }

  /**
   * Deletes the webhook with its deliveries; attempts still queued find nothing and end. With `ifMatch`, only the
   * webhook at that ETag: it is locked and compared first, so no update comes between.
   */
  async delete(tenantId: string, id: string, ifMatch?: string): Promise<null> {
    if (!isId('webhook', id)) throw notFound('webhook', id);
    const result = await this.ds.transaction(async (m) => {
      if (ifMatch !== undefined) assertIfMatch(ifMatch, webhookEtag(await this.load(m, tenantId, id, true)));
      return m.delete(WebhookEntity, { tenantId, id });
    });
    if (!result.affected) throw notFound('webhook', id);
    return null;
  }

  /** Sends a `ping` through the same path as every event; answers its first attempt, still pending. */
  async test(tenantId: string, id: string): Promise<Delivery> {
    const webhook = await this.load(this.ds.manager, tenantId, id);
    const now = new Date();
    const payload: WebhookPayload = {
      id: newId('event'),
      type: 'ping',
      created_at: now.toISOString(),
      data: { webhook_id: webhook.id },
    };
    const [attempt] = await this.planner.single(tenantId, webhook.id, payload);
    if (!attempt) throw new Error('the ping was not planned');
    return {
      id: attempt.id,
      webhook_id: webhook.id,
      event_id: payload.id,
      event_type: payload.type,
      attempt: 1,
      status: 'pending',
      status_code: null,
      latency_ms: null,
      error: null,
      next_retry_at: null,
      created_at: attempt.created_at.toISOString(),
    };
  }

  /** The body with its secret, which the gateway sealed for this tenant, opened in memory. */
  private fromTransit<B extends { secret?: string }>(tenantId: string, body: B): B {
    return openFieldsFromTransit(this.secrets, body, ['secret'], tenantId, 'webhook') as B;
  }

  private async assertInput(input: { url?: string; secret?: string }): Promise<void> {
    const errors = await webhookInputErrors(input, this.settings);
    if (errors.length > 0) throw validationFailed(errors);
  }

  private async load(manager: EntityManager, tenantId: string, id: string, forUpdate = false): Promise<WebhookEntity> {
    if (!isId('webhook', id)) throw notFound('webhook', id);
    const row = await manager.findOne(WebhookEntity, {
      where: { tenantId, id },
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!row) throw notFound('webhook', id);
    return row;
  }
}

/** The same event kinds in the same order (the order is answered as it was sent). */
function sameEvents(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((kind, i) => kind === b[i]);
}
