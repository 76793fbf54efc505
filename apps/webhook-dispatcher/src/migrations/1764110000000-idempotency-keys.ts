import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quotedSchemaOf } from '../database/schema-name.js';

/**
 * The client's Idempotency-Key on the webhooks it created (issue 16): unique per tenant, so a retry after a timeout or
 * a crash finds the webhook the first request made instead of making a second (which would deliver every event twice).
 */
export class IdempotencyKeys1764110000000 implements MigrationInterface {
  name = 'IdempotencyKeys1764110000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(
      `ALTER TABLE ${s}.webhooks ADD COLUMN idempotency_key text, ADD COLUMN idempotency_fingerprint text`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX webhooks_tenant_idempotency_key ON ${s}.webhooks (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`DROP INDEX ${s}.webhooks_tenant_idempotency_key`);
    await queryRunner.query(
      `ALTER TABLE ${s}.webhooks DROP COLUMN idempotency_key, DROP COLUMN idempotency_fingerprint`,
    );
  }
}
