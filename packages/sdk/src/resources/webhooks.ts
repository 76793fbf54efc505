import type { Client } from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import { Paginated } from '../pagination.js';
import { ifMatchHeader, type ConditionalOptions } from '../versions.js';
import type { Delivery, QueryOf, RequestBody, Webhook } from '../types.js';
import { defined, expectNoContent, unwrap } from '../unwrap.js';
import type { PageOptions } from './list-params.js';

export interface DeliveryListOptions extends PageOptions {
  status?: QueryOf<'listDeliveries'>['status'];
}

export class WebhooksApi {
  constructor(private readonly raw: Client<paths>) {}

  list(options: PageOptions = {}): Paginated<Webhook> {
    return new Paginated((cursor) =>
      unwrap(this.raw.GET('/v2/webhooks', { params: { query: defined({ cursor, limit: options.pageSize }) } })),
    );
  }

  get(webhookId: string): Promise<Webhook> {
    return unwrap(this.raw.GET('/v2/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } } }));
  }

  /** The answer carries the signing secret this once (`whsec_...`); later reads never show it. */
  create(body: RequestBody<'createWebhook'>): Promise<Webhook> {
    return unwrap(this.raw.POST('/v2/webhooks', { body }));
  }

  /** Changes only the fields sent; `ifMatch` (etagOf a webhook answered before) makes it conditional. */
  async update(
    webhookId: string,
    body: RequestBody<'updateWebhook'>,
    options: ConditionalOptions = {},
  ): Promise<Webhook> {
    return unwrap(
      this.raw.PATCH('/v2/webhooks/{webhook_id}', {
        params: { path: { webhook_id: webhookId }, header: ifMatchHeader(options) },
        body,
      }),
    );
  }

  /** Deletes the webhook; `ifMatch` makes it conditional. */
  async delete(webhookId: string, options: ConditionalOptions = {}): Promise<void> {
    return expectNoContent(
      this.raw.DELETE('/v2/webhooks/{webhook_id}', {
        params: { path: { webhook_id: webhookId }, header: ifMatchHeader(options) },
      }),
    );
  }

  /** Every delivery attempt, newest first. */
  deliveries(webhookId: string, options: DeliveryListOptions = {}): Paginated<Delivery> {
    return new Paginated((cursor) =>
      unwrap(
        this.raw.GET('/v2/webhooks/{webhook_id}/deliveries', {
          params: {
            path: { webhook_id: webhookId },
            query: defined({ cursor, limit: options.pageSize, status: options.status }),
          },
        }),
      ),
    );
  }

  /** Sends a `ping` through the normal delivery path; answers its first attempt, still `pending`. */
  test(webhookId: string): Promise<Delivery> {
    return unwrap(this.raw.POST('/v2/webhooks/{webhook_id}/test', { params: { path: { webhook_id: webhookId } } }));
  }
}
