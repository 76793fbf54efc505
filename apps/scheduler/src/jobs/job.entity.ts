import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ConcurrencyPolicy, JobStatus } from '@conduit/contracts';

@Entity({ name: 'jobs' })
export class JobEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'tenant_id' })
  tenantId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text', name: 'pipeline_id' })
  pipelineId!: string;

  @Column({ type: 'text', nullable: true })
  schedule!: string | null;

  @Column({ type: 'text' })
  timezone!: string;

  @Column({ type: 'text' })
  status!: JobStatus;

  @Column({ type: 'text', name: 'concurrency_policy' })
  concurrencyPolicy!: ConcurrencyPolicy;

  @Column({ type: 'jsonb' })
  parameters!: Record<string, unknown>;

  /** Bumped on every write: part of the ETag, so two updates in the same millisecond still differ. */
  @Column({ type: 'integer' })
  revision!: number;

  @Column({ type: 'timestamptz', precision: 3, name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', precision: 3, name: 'updated_at' })
  updatedAt!: Date;

  /** When the schedule clock fires the job next; null while paused or unscheduled (JobSchedules keeps it). */
  @Column({ type: 'timestamptz', precision: 3, name: 'next_fire_at', nullable: true })
  nextFireAt!: Date | null;

  /** The client's Idempotency-Key (unique per tenant) and the HMAC of the request that came with it; null without one. */
  @Column({ type: 'text', name: 'idempotency_key', nullable: true })
  idempotencyKey!: string | null;

  @Column({ type: 'text', name: 'idempotency_fingerprint', nullable: true })
  idempotencyFingerprint!: string | null;
}
