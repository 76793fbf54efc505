import { Module } from '@nestjs/common';
import { DeliveriesController } from './deliveries.controller.js';
import { DeliveriesService } from './deliveries.service.js';
import { DeliveryPlanner } from './delivery-planner.js';
import { AttemptRunner } from './attempt-runner.js';
import { DeliveryWorker } from './delivery.worker.js';
import { SourceEventsWorker } from './source-events.worker.js';
import { DeliveryQueue } from './delivery-queue.js';
import { DeliverySweeper } from './delivery-sweeper.js';
import { SubscribedTenants } from '../webhooks/subscribed-tenants.js';

@Module({
  controllers: [DeliveriesController],
  providers: [
    DeliveriesService,
    DeliveryPlanner,
    AttemptRunner,
    DeliveryWorker,
    SourceEventsWorker,
    DeliverySweeper,
    DeliveryQueue,
    SubscribedTenants,
  ],
  exports: [DeliveryPlanner],
})
export class DeliveriesModule {}
