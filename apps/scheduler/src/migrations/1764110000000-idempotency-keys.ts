import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quotedSchemaOf } from '../database/schema-name.js';

/**
 * The client's Idempotency-Key on the runs and jobs it created (issue 16): unique per tenant, so a retry after a
 * timeout or a crash finds the row the first request made instead of making a second. Partial indexes: rows made
 * without a key (and every row from before) hold nothing in them, so building them on a large table is quick.
 */
export class IdempotencyKeys1764110000000 implements MigrationInterface {
  name = 'IdempotencyKeys1764110000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    for (const table of ['runs', 'jobs']) {
      await queryRunner.query(
        `ALTER TABLE ${s}.${table} ADD COLUMN idempotency_key text, ADD COLUMN idempotency_fingerprint text`,
      );
      await queryRunner.query(
        `CREATE UNIQUE INDEX ${table}_tenant_idempotency_key ON ${s}.${table} (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    for (const table of ['runs', 'jobs']) {
      await queryRunner.query(`DROP INDEX ${s}.${table}_tenant_idempotency_key`);
      await queryRunner.query(
        `ALTER TABLE ${s}.${table} DROP COLUMN idempotency_key, DROP COLUMN idempotency_fingerprint`,
      );
    }
  }
}
