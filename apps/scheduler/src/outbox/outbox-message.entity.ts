import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A run's command, a run's event, or a batch of the schedule clock's runs (outbox/scheduled-runs-message.ts). */
export type OutboxKind = 'run_command' | 'run_event' | 'scheduled_runs';

/** A message written in the transaction of the change it announces, published to BullMQ after the commit. */
@Entity({ name: 'outbox' })
export class OutboxMessageEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'text' })
  kind!: OutboxKind;

  /** The BullMQ job id: the run id of a command, the event id of an event (a batch's first run: its runs carry theirs). */
  @Column({ type: 'text', name: 'message_id' })
  messageId!: string;

  @Column({ type: 'text', name: 'run_id' })
  runId!: string;

  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @Column({ type: 'timestamptz', precision: 3, name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', precision: 3, name: 'published_at', nullable: true })
  publishedAt!: Date | null;
}
