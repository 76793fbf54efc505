import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quotedSchemaOf } from '../database/schema-name.js';

/**
 * A version of which tenants have an active webhook (SubscribedTenants), bumped by triggers in the transaction that
 * changes it, whoever writes (any replica, of any version, or plain SQL). It lives with the webhooks, so a database
 * restored or failed over brings back the version and the rows that go with it. The bump locks the one row until
 * commit, so versions commit in their order: a snapshot that reads version V sees every change up to V.
 */
export class SubscriptionsVersion1764120000000 implements MigrationInterface {
  name = 'SubscriptionsVersion1764120000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`
      CREATE TABLE ${s}.webhook_subscriptions_version (
        id      boolean PRIMARY KEY DEFAULT true CHECK (id),
        version bigint NOT NULL
      )`);
    await queryRunner.query(`INSERT INTO ${s}.webhook_subscriptions_version (version) VALUES (1)`);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.bump_webhook_subscriptions_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE ${s}.webhook_subscriptions_version SET version = version + 1 WHERE id;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER webhooks_subscriptions_added_or_removed
        AFTER INSERT OR DELETE OR TRUNCATE ON ${s}.webhooks
        FOR EACH STATEMENT EXECUTE FUNCTION ${s}.bump_webhook_subscriptions_version()`);
    // Per row, with a condition: the frequent updates of failing_since (every failed or recovered attempt) neither
    // take the version's lock nor make every replica load the set again.
    await queryRunner.query(`
      CREATE TRIGGER webhooks_subscriptions_changed
        AFTER UPDATE ON ${s}.webhooks FOR EACH ROW
        WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
        EXECUTE FUNCTION ${s}.bump_webhook_subscriptions_version()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`DROP TRIGGER webhooks_subscriptions_changed ON ${s}.webhooks`);
    await queryRunner.query(`DROP TRIGGER webhooks_subscriptions_added_or_removed ON ${s}.webhooks`);
    await queryRunner.query(`DROP FUNCTION ${s}.bump_webhook_subscriptions_version()`);
    await queryRunner.query(`DROP TABLE ${s}.webhook_subscriptions_version`);
  }
}
