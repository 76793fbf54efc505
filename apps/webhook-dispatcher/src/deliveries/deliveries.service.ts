import { Injectable } from '@nestjs/common';
import { DataSource, LessThan, type FindOptionsWhere } from 'typeorm';
import { cursorLists, isId, pageOf, type Delivery, type Page, type RpcData } from '@conduit/contracts';
import { DeliveryEntity } from './delivery.entity.js';
import { toDelivery } from './delivery.mapper.js';
import { WebhookEntity } from '../webhooks/webhook.entity.js';
import { cursorAfter, notFound } from '@conduit/service-kit';

type DeliveryListQuery = RpcData<'webhooks.deliveries.list'>['query'];

@Injectable()
export class DeliveriesService {
  constructor(private readonly ds: DataSource) {}

  /** The webhook's attempts, newest first; 404 for a webhook the tenant does not have. */
  async list(tenantId: string, webhookId: string, query: DeliveryListQuery): Promise<Page<Delivery>> {
    const after = cursorAfter(query.cursor, cursorLists.deliveries(webhookId));
    if (!isId('webhook', webhookId) || !(await this.ds.manager.existsBy(WebhookEntity, { tenantId, id: webhookId }))) {
      throw notFound('webhook', webhookId);
    }
    const where: FindOptionsWhere<DeliveryEntity> = { tenantId, webhookId };
    if (query.status !== undefined) where.status = query.status;
    if (after !== undefined) where.id = LessThan(after);
    const rows = await this.ds.manager.find(DeliveryEntity, { where, order: { id: 'DESC' }, take: query.limit + 1 });
    return pageOf(rows.map(toDelivery), query.limit, (d) => d.id, cursorLists.deliveries(webhookId));
  }
}
