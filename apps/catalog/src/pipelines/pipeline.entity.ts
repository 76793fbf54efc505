import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PipelineStatus, PipelineValidation } from '@conduit/contracts';

@Entity({ name: 'pipelines' })
export class PipelineEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'tenant_id' })
  tenantId!: string;

  @Column({ type: 'text', name: 'project_id', nullable: true })
  projectId!: string | null;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'json' })
  dag!: Record<string, unknown>;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'text' })
  status!: PipelineStatus;

  @Column({ type: 'jsonb' })
  validation!: PipelineValidation;

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
