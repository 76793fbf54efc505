import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Delivery } from '@conduit/contracts';

/** One attempt to deliver one event to one webhook. */
@Entity({ name: 'deliveries' })
export class DeliveryEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'tenant_id' })
  tenantId!: string;

  @Column({ type: 'text', name: 'webhook_id' })
  webhookId!: string;

  @Column({ type: 'text', name: 'event_id' })
  eventId!: string;

  @Column({ type: 'text', name: 'event_type' })
  eventType!: string;

  @Column({ type: 'integer' })
  attempt!: number;

  @Column({ type: 'text' })
  status!: Delivery['status'];

  @Column({ type: 'integer', name: 'status_code', nullable: true })
  statusCode!: number | null;

  @Column({ type: 'integer', name: 'latency_ms', nullable: true })
  latencyMs!: number | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'timestamptz', precision: 3, name: 'next_retry_at', nullable: true })
  nextRetryAt!: Date | null;

  @Column({ type: 'timestamptz', precision: 3, name: 'due_at' })
  dueAt!: Date;

  @Column({ type: 'timestamptz', precision: 3, name: 'claimed_at', nullable: true })
  claimedAt!: Date | null;

  @Column({ type: 'timestamptz', precision: 3, name: 'finished_at', nullable: true })
  finishedAt!: Date | null;

  @Column({ type: 'timestamptz', precision: 3, name: 'created_at' })
  createdAt!: Date;
}
