import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quotedSchemaOf } from '../database/schema-name.js';

/** The dispatcher's tables, in the data source's schema (default `webhooks`; tests migrate one of their own). */
export class Init1733000000000 implements MigrationInterface {
  name = 'Init1733000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`
      CREATE TABLE ${s}.webhooks (
        id              text PRIMARY KEY,
        tenant_id       text NOT NULL,
        url             text NOT NULL,
        events          text[] NOT NULL,
        description     text,
        -- AES-256-GCM under SECRETS_KEY, the webhook id as additional data: never stored or answered in clear.
        secret_sealed   text NOT NULL,
        status          text NOT NULL CHECK (status IN ('active', 'disabled')),
        disabled_reason text,
        -- Start of the current run of failures (null after a success): 5 days of it disable the webhook.
        failing_since   timestamptz(3),
        revision        integer NOT NULL DEFAULT 1,
        created_at      timestamptz(3) NOT NULL,
        updated_at      timestamptz(3) NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX webhooks_tenant_id_idx ON ${s}.webhooks (tenant_id, id DESC)`);
    // Fan-out: the tenant's active webhooks subscribed to a kind.
    await queryRunner.query(
      `CREATE INDEX webhooks_fan_out_idx ON ${s}.webhooks USING gin (events) WHERE status = 'active'`,
    );
    await queryRunner.query(`
      CREATE TABLE ${s}.events (
        -- The source event's id: inserting it twice fails, which makes the fan-out idempotent.
        event_id   text PRIMARY KEY,
        tenant_id  text NOT NULL,
        type       text NOT NULL,
        -- The exact JSON text every webhook receives (and whose bytes are signed): { id, type, created_at, data }.
        body       text NOT NULL,
        created_at timestamptz(3) NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.deliveries (
        -- One row per attempt; the next attempt is a new row written with the outcome of the previous one.
        id            text PRIMARY KEY,
        tenant_id     text NOT NULL,
        webhook_id    text NOT NULL REFERENCES ${s}.webhooks (id) ON DELETE CASCADE,
        event_id      text NOT NULL REFERENCES ${s}.events (event_id) ON DELETE CASCADE,
        event_type    text NOT NULL,
        attempt       integer NOT NULL,
        status        text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        status_code   integer,
        latency_ms    integer,
        error         text,
        next_retry_at timestamptz(3),
        -- When the attempt may be sent, and when a worker took it (a stale claim is a worker that died sending).
        due_at        timestamptz(3) NOT NULL,
        claimed_at    timestamptz(3),
        finished_at   timestamptz(3),
        created_at    timestamptz(3) NOT NULL,
        CONSTRAINT deliveries_attempt_key UNIQUE (webhook_id, event_id, attempt)
      )`);
    await queryRunner.query(`CREATE INDEX deliveries_webhook_id_idx ON ${s}.deliveries (webhook_id, id DESC)`);
    await queryRunner.query(
      `CREATE INDEX deliveries_webhook_status_id_idx ON ${s}.deliveries (webhook_id, status, id DESC)`,
    );
    // The sweep over attempts whose queue job may have been lost.
    await queryRunner.query(
      `CREATE INDEX deliveries_pending_due_idx ON ${s}.deliveries (due_at) WHERE status = 'pending'`,
    );
    await queryRunner.query(`
      CREATE TABLE ${s}.outbox (
        id           bigserial PRIMARY KEY,
        -- The BullMQ job id: the event id.
        message_id   text NOT NULL,
        payload      jsonb NOT NULL,
        created_at   timestamptz(3) NOT NULL,
        published_at timestamptz(3)
      )`);
    await queryRunner.query(`CREATE INDEX outbox_pending_idx ON ${s}.outbox (id) WHERE published_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`DROP TABLE ${s}.outbox`);
    await queryRunner.query(`DROP TABLE ${s}.deliveries`);
    await queryRunner.query(`DROP TABLE ${s}.events`);
    await queryRunner.query(`DROP TABLE ${s}.webhooks`);
  }
}
