import { Column, Entity, PrimaryColumn } from 'typeorm';

/** gateway.tenants: tenants created by an operator (or the bootstrap). JWT-only tenants have no row. */
@Entity({ name: 'tenants' })
export class TenantEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'timestamptz' })
  created_at!: Date;

  /** The client's Idempotency-Key and the HMAC of the request that came with it; null without one. */
  @Column({ type: 'text', nullable: true })
  idempotency_key!: string | null;

  @Column({ type: 'text', nullable: true })
  idempotency_fingerprint!: string | null;
}
