import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { RunError, RunNode, RunStatus, RunTrigger } from '@conduit/contracts';

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
  nodes!: RunNode[];

  @Column({ type: 'jsonb' })
  stats!: { rows_read: number; rows_written: number };

  /** When the run last changed or an executor last reported on it: the reaper's measure of silence. */
  @Column({ type: 'timestamptz', precision: 3, name: 'last_event_at' })
  lastEventAt!: Date;

  @Column({ type: 'text', name: 'tick_id', nullable: true })
  tickId!: string | null;

  @Column({ type: 'integer' })
  requeues!: number;
}
