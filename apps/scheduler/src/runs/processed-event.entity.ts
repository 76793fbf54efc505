import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The executor reports already applied: delivery is at least once, so a report seen twice is ignored. */
@Entity({ name: 'processed_events' })
export class ProcessedEventEntity {
  @PrimaryColumn({ type: 'text', name: 'event_id' })
  eventId!: string;

  @Column({ type: 'timestamptz', precision: 3, name: 'processed_at' })
  processedAt!: Date;
}
