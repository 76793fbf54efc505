import { Injectable } from '@nestjs/common';
import { QUEUES } from '@conduit/contracts';
import { QueueProducers } from '@conduit/service-kit';

/** Queues delivery attempts (`webhook-deliveries`, job id = delivery id), each to run after its delay. */
@Injectable()
export class DeliveryQueue {
  constructor(private readonly producers: QueueProducers) {}

  /** An id already queued is left as it is (BullMQ dedupes on it). */
  async enqueue(attempts: { id: string; tenantId: string; delayMs: number }[]): Promise<void> {
    if (attempts.length === 0) return;
    await this.producers.of(QUEUES.webhookDeliveries).addBulk(
      attempts.map((a) => ({
        name: 'deliver' as const,
        data: { delivery_id: a.id, tenant_id: a.tenantId },
        opts: { jobId: a.id, delay: Math.max(0, Math.round(a.delayMs)) },
      })),
    );
  }
}
