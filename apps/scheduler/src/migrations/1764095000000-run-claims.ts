import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quotedSchemaOf } from '../database/schema-name.js';

/**
 * Fencing of run executions (issue 16, runs/run-claims.ts): the epoch of the current claim, who holds it (executor
 * and queue attempt) and until when. Constant defaults and nullable columns make the ADD instant on a large table.
 */
export class RunClaims1764095000000 implements MigrationInterface {
  name = 'RunClaims1764095000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(
      `ALTER TABLE ${s}.runs ADD COLUMN epoch integer NOT NULL DEFAULT 0, ADD COLUMN claimed_by text, ADD COLUMN claim_attempt integer, ADD COLUMN lease_until timestamptz(3)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(
      `ALTER TABLE ${s}.runs DROP COLUMN epoch, DROP COLUMN claimed_by, DROP COLUMN claim_attempt, DROP COLUMN lease_until`,
    );
  }
}
