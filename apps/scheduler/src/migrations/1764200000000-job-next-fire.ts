import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quotedSchemaOf } from '../database/schema-name.js';

/**
 * When each active scheduled job fires next (issue 18): the schedule clock takes the due jobs from this column in
 * batches, instead of one BullMQ job scheduler and one queue job per tick. Filled at boot for the jobs of before.
 */
export class JobNextFire1764200000000 implements MigrationInterface {
  name = 'JobNextFire1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`ALTER TABLE ${s}.jobs ADD COLUMN next_fire_at timestamptz(3)`);
    await queryRunner.query(
      `CREATE INDEX jobs_due_idx ON ${s}.jobs (next_fire_at) WHERE status = 'active' AND next_fire_at IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`DROP INDEX ${s}.jobs_due_idx`);
    await queryRunner.query(`ALTER TABLE ${s}.jobs DROP COLUMN next_fire_at`);
  }
}
