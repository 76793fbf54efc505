import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { WebhookEventType, WebhookStatus } from '@conduit/contracts';

@Entity({ name: 'webhooks' })
export class WebhookEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'tenant_id' })
  tenantId!: string;

  @Column({ type: 'text' })
  url!: string;

  /** Checked against the event types when written (the request schema). */
  @Column({ type: 'text', array: true })
  events!: WebhookEventType[];

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** Encrypted (SecretBox); never leaves the service. */
  @Column({ type: 'text', name: 'secret_sealed' })
  secretSealed!: string;

  @Column({ type: 'text' })
  status!: WebhookStatus;

  @Column({ type: 'text', name: 'disabled_reason', nullable: true })
  disabledReason!: string | null;

  @Column({ type: 'timestamptz', precision: 3, name: 'failing_since', nullable: true })
  failingSince!: Date | null;

  /** Bumped on every write: part of the ETag. */
  @Column({ type: 'integer' })
  revision!: number;

  @Column({ type: 'timestamptz', precision: 3, name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', precision: 3, name: 'updated_at' })
  updatedAt!: Date;

  /** The client's Idempotency-Key (unique per tenant) and the HMAC of the request that came with it; null without one. */
  @Column({ type: 'text', name: 'idempotency_key', nullable: true })
  idempotencyKey!: string | null;

  @Column({ type: 'text', name: 'idempotency_fingerprint', nullable: true })
  idempotencyFingerprint!: string | null;
}
