import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The client's Idempotency-Key on the API keys and tenants it created (issue 16): a key never makes a second one. The
 * answer itself (it shows the new API key once) is not kept here; only the gateway's sealed replay record holds it.
 * Tenants are created by operators, all of the bootstrap tenant, so their key is unique across the table.
 */
export class IdempotencyKeys1795400000000 implements MigrationInterface {
  name = 'IdempotencyKeys1795400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    for (const table of ['api_keys', 'tenants']) {
      await queryRunner.query(
        `ALTER TABLE ${s}."${table}" ADD COLUMN "idempotency_key" text, ADD COLUMN "idempotency_fingerprint" text`,
      );
    }
    await queryRunner.query(
      `CREATE UNIQUE INDEX "api_keys_tenant_idempotency_key" ON ${s}."api_keys" ("tenant_id", "idempotency_key") WHERE "idempotency_key" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "tenants_idempotency_key" ON ${s}."tenants" ("idempotency_key") WHERE "idempotency_key" IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}."api_keys_tenant_idempotency_key"`);
    await queryRunner.query(`DROP INDEX ${s}."tenants_idempotency_key"`);
    for (const table of ['api_keys', 'tenants']) {
      await queryRunner.query(
        `ALTER TABLE ${s}."${table}" DROP COLUMN "idempotency_key", DROP COLUMN "idempotency_fingerprint"`,
      );
    }
  }
}

function schemaOf(queryRunner: QueryRunner): string {
  const options = queryRunner.connection.options as { schema?: string };
  return `"${(options.schema ?? 'gateway').replace(/"/g, '""')}"`;
}
