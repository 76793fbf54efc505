import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type OutboxKind = 'run_command' | 'run_event';

/** A message written in the transaction of the change it announces, published to BullMQ after the commit. */
@Entity({ name: 'outbox' })
export class OutboxMessageEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'text' })
  kind!: OutboxKind;

  /** The BullMQ job id: the run id of a command, the event id of an event. */
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
