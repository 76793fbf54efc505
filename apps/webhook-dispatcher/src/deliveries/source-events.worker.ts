import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { QUEUES, type WebhookSourceEvent } from '@conduit/contracts';
import { JobConsumer, QueueWorkers, type ConsumerOptions, type JobHandlers } from '@conduit/service-kit';
import { DeliveryPlanner, MAX_PLAN_BATCH } from './delivery-planner.js';
import { webhookPayloadOf } from './event-payload.js';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

export type SourceEventOutcome = 'planned' | 'duplicate_or_unsubscribed' | 'not_a_webhook_event';

/** Consumes `events.webhooks` (run events from the scheduler, alert events from monitoring) into deliveries. */
@Injectable()
export class SourceEventsWorker extends JobConsumer<typeof QUEUES.eventsWebhooks> {
  constructor(
    workers: QueueWorkers,
    private readonly planner: DeliveryPlanner,
    @Inject(DISPATCHER_LOGGER) logger: Logger,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
  ) {
    super(QUEUES.eventsWebhooks, workers, logger);
  }

  protected consumerOptions(): ConsumerOptions {
    return {
      enabled: this.settings.background.events,
      // Each event waits only for its batch's write (sending goes on after): taking a whole batch's worth at once
      // lets a burst be planned in full batches instead of the few events that came in during the previous write.
      concurrency: MAX_PLAN_BATCH,
    };
  }

  protected handlers(): JobHandlers<typeof QUEUES.eventsWebhooks> {
    const plan = (event: WebhookSourceEvent) => this.plan(event);
    return {
      'run.queued': plan,
      'run.started': plan,
      'run.succeeded': plan,
      'run.failed': plan,
      'run.canceled': plan,
      'alert.opened': plan,
      'alert.resolved': plan,
    };
  }

  /** Plans the deliveries of one event. */
  private async plan(event: WebhookSourceEvent): Promise<SourceEventOutcome> {
    const payload = webhookPayloadOf(event);
    if (!payload) return 'not_a_webhook_event';
    const planned = await this.planner.fanOut(event.tenant_id, payload);
    return planned.length > 0 ? 'planned' : 'duplicate_or_unsubscribed';
  }
}
