import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenants and API keys. The schema is the data source's (`gateway` in production, a throwaway one in tests). */
export class GatewayInit1795311399076 implements MigrationInterface {
  name = 'GatewayInit1795311399076';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}."tenants" (
        "id" varchar(64) PRIMARY KEY,
        "name" varchar(200) NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}."api_keys" (
        "id" varchar(64) PRIMARY KEY,
        "tenant_id" varchar(64) NOT NULL,
        "name" varchar(200) NOT NULL,
        "key_hash" char(64) NOT NULL,
        "prefix" varchar(16) NOT NULL,
        "scopes" text[] NOT NULL,
        "rate_limit_per_minute" integer NULL CHECK ("rate_limit_per_minute" > 0),
        "bootstrap" boolean NOT NULL DEFAULT false,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "last_used_at" timestamptz NULL,
        "revoked_at" timestamptz NULL,
        CONSTRAINT "api_keys_key_hash_key" UNIQUE ("key_hash")
      )`);
    // Serves the list (per tenant, newest first, live keys only).
    await queryRunner.query(
      `CREATE INDEX "api_keys_tenant_live_idx" ON ${s}."api_keys" ("tenant_id", "id" DESC) WHERE "revoked_at" IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}."api_keys"`);
    await queryRunner.query(`DROP TABLE ${s}."tenants"`);
  }
}

function schemaOf(queryRunner: QueryRunner): string {
  const options = queryRunner.connection.options as { schema?: string };
  return `"${(options.schema ?? 'gateway').replace(/"/g, '""')}"`;
}
