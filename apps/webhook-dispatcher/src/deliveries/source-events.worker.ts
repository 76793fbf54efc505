import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { QUEUES, webhookSourceEventSchema } from '@conduit/contracts';
import { DeliveryPlanner, MAX_PLAN_BATCH } from './delivery-planner.js';
import { webhookPayloadOf } from './event-payload.js';
import { DispatcherQueues } from '../queues/dispatcher-queues.js';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

export type SourceEventOutcome = 'planned' | 'duplicate_or_unsubscribed' | 'not_a_webhook_event' | 'malformed';

/** Consumes `events.webhooks` (run events from the scheduler, alert events from monitoring) into deliveries. */
@Injectable()
export class SourceEventsWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private worker: Worker | null = null;

  constructor(
    private readonly planner: DeliveryPlanner,
    private readonly queues: DispatcherQueues,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.background.events) return;
    this.worker = new Worker(QUEUES.eventsWebhooks, (job) => this.handle(job), {
      connection: this.queues.connection,
      prefix: this.queues.prefix,
      // Each event waits only for its batch's write (sending goes on after): taking a whole batch's worth at once
      // lets a burst be planned in full batches instead of the few events that came in during the previous write.
      concurrency: MAX_PLAN_BATCH,
    });
    this.worker.on('error', (err) => this.logger.warn({ err }, 'events.webhooks worker error'));
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }

  /** Plans the deliveries of one event. A malformed one is logged and dropped: retrying cannot fix it. */
  async handle(job: Pick<Job, 'id' | 'data'>): Promise<SourceEventOutcome> {
    const parsed = webhookSourceEventSchema.safeParse(job.data);
    if (!parsed.success) {
      this.logger.error(
        { job_id: job.id, issues: parsed.error.issues.slice(0, 5) },
        'malformed webhook source event dropped',
      );
      return 'malformed';
    }
    const payload = webhookPayloadOf(parsed.data);
    if (!payload) return 'not_a_webhook_event';
    const planned = await this.planner.fanOut(parsed.data.tenant_id, payload);
    return planned.length > 0 ? 'planned' : 'duplicate_or_unsubscribed';
  }
}
