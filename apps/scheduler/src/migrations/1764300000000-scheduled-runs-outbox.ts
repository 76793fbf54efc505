import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quotedSchemaOf } from '../database/schema-name.js';

/**
 * Outbox rows of kind `scheduled_runs` (issue 18): one row names up to 100 runs of the schedule clock, whose commands
 * and `run.queued` events the relay builds when it publishes, instead of two full rows per run.
 */
export class ScheduledRunsOutbox1764300000000 implements MigrationInterface {
  name = 'ScheduledRunsOutbox1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(
      `ALTER TABLE ${s}.outbox DROP CONSTRAINT outbox_kind_check, ADD CONSTRAINT outbox_kind_check CHECK (kind IN ('run_command', 'run_event', 'scheduled_runs'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(
      `ALTER TABLE ${s}.outbox DROP CONSTRAINT outbox_kind_check, ADD CONSTRAINT outbox_kind_check CHECK (kind IN ('run_command', 'run_event'))`,
    );
  }
}
