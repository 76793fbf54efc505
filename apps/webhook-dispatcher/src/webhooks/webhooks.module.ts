import { Module } from '@nestjs/common';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';
import { WebhookTenantsRefresh } from './webhook-tenants-refresh.js';
import { DeliveriesModule } from '../deliveries/deliveries.module.js';

@Module({
  imports: [DeliveriesModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookTenantsRefresh],
})
export class WebhooksModule {}
