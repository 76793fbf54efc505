import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { RunError, RunNode, RunNodeColumn, RunStatus, RunTrigger } from '@conduit/contracts';

/** A node as the `nodes` column keeps it: its columns live in `node_columns`. */
export type StoredRunNode = Omit<RunNode, 'columns'>;

/** Output columns by node id; a node without an entry has produced no output (yet). */
export type NodeColumnsById = Record<string, RunNodeColumn[]>;

@Entity({ name: 'runs' })
export class RunEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'tenant_id' })
  tenantId!: string;

  @Column({ type: 'text', name: 'job_id' })
  jobId!: string;

  @Column({ type: 'text', name: 'pipeline_id' })
  pipelineId!: string;

  @Column({ type: 'integer', name: 'pipeline_version' })
  pipelineVersion!: number;

  /** The pipeline's DAG as it was when the run was triggered. */
  @Column({ type: 'jsonb' })
  dag!: Record<string, unknown>;

  @Column({ type: 'text' })
  status!: RunStatus;

  @Column({ type: 'text' })
  trigger!: RunTrigger;

  @Column({ type: 'jsonb' })
  parameters!: Record<string, unknown>;

  @Column({ type: 'integer' })
  attempt!: number;

  @Column({ type: 'timestamptz', precision: 3, name: 'queued_at' })
  queuedAt!: Date;

  @Column({ type: 'timestamptz', precision: 3, name: 'started_at', nullable: true })
  startedAt!: Date | null;

  @Column({ type: 'timestamptz', precision: 3, name: 'finished_at', nullable: true })
  finishedAt!: Date | null;

  @Column({ type: 'jsonb', nullable: true })
  error!: RunError | null;

  @Column({ type: 'jsonb' })
  nodes!: StoredRunNode[];

  @Column({ type: 'jsonb', name: 'node_columns' })
  nodeColumns!: NodeColumnsById;

  @Column({ type: 'jsonb' })
  stats!: { rows_read: number; rows_written: number };

  /** When the run last changed or an executor last reported on it: the reaper's measure of silence. */
  @Column({ type: 'timestamptz', precision: 3, name: 'last_event_at' })
  lastEventAt!: Date;

  @Column({ type: 'text', name: 'tick_id', nullable: true })
  tickId!: string | null;

  @Column({ type: 'integer' })
  requeues!: number;

  /** The current claim's number (run-claims.ts): bumped by every claim and by every end the scheduler decides. */
  @Column({ type: 'integer' })
  epoch!: number;

  /** The executor holding the current claim, and the queue job attempt it claimed in. */
  @Column({ type: 'text', name: 'claimed_by', nullable: true })
  claimedBy!: string | null;

  @Column({ type: 'integer', name: 'claim_attempt', nullable: true })
  claimAttempt!: number | null;

  /** Until when the current claim holds without a renewal; the reaper acts only after it. */
  @Column({ type: 'timestamptz', precision: 3, name: 'lease_until', nullable: true })
  leaseUntil!: Date | null;

  /** The client's Idempotency-Key (unique per tenant) and the HMAC of the request that came with it; null without one. */
  @Column({ type: 'text', name: 'idempotency_key', nullable: true })
  idempotencyKey!: string | null;

  @Column({ type: 'text', name: 'idempotency_fingerprint', nullable: true })
  idempotencyFingerprint!: string | null;
}
