import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ConnectionTestResult, ConnectorStatus } from '@conduit/contracts';

@Entity({ name: 'connectors' })
export class ConnectorEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'tenant_id' })
  tenantId!: string;

  @Column({ type: 'text', name: 'project_id', nullable: true })
  projectId!: string | null;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  type!: string;

  /** Secret fields are stored encrypted ('enc:v1:...'); never answer this without masking. */
  @Column({ type: 'jsonb' })
  config!: Record<string, unknown>;

  @Column({ type: 'text' })
  status!: ConnectorStatus;

  @Column({ type: 'jsonb', name: 'last_test', nullable: true })
  lastTest!: ConnectionTestResult | null;

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
