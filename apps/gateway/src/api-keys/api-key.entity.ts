import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Scope } from '@conduit/contracts';

/** gateway.api_keys: the key itself is never stored, only its sha256. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  // No foreign key to tenants: a JWT-only tenant (no row) may still create keys.
  @Column({ type: 'varchar', length: 64 })
  tenant_id!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'char', length: 64, unique: true })
  key_hash!: string;

  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  @Column({ type: 'text', array: true })
  scopes!: Scope[];

  @Column({ type: 'integer', nullable: true })
  rate_limit_per_minute!: number | null;

  /** True for the key that ensureBootstrap manages from BOOTSTRAP_API_KEY. */
  @Column({ type: 'boolean', default: false })
  bootstrap!: boolean;

  @Column({ type: 'timestamptz' })
  created_at!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  last_used_at!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revoked_at!: Date | null;

  /** The client's Idempotency-Key and the HMAC of the request that came with it; null without one. */
  @Column({ type: 'text', nullable: true })
  idempotency_key!: string | null;

  @Column({ type: 'text', nullable: true })
  idempotency_fingerprint!: string | null;
}
