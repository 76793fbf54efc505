import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quotedSchemaOf } from '../database/schema-name.js';

/**
 * The monitoring tables. The schema comes from the data source (default `monitoring`), so integration tests can
 * migrate a fresh schema of their own.
 */
export class Init1732400000000 implements MigrationInterface {
  name = 'Init1732400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    // One row per run: its latest known state, from the scheduler's run.* events.
    await queryRunner.query(`
      CREATE TABLE ${s}.run_facts (
        run_id           text PRIMARY KEY,
        tenant_id        text NOT NULL,
        job_id           text NOT NULL,
        pipeline_id      text NOT NULL,
        status           text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
        trigger          text NOT NULL,
        attempt          integer NOT NULL,
        queued_at        timestamptz(3) NOT NULL,
        started_at       timestamptz(3),
        finished_at      timestamptz(3),
        duration_ms      bigint,
        rows_read        bigint NOT NULL DEFAULT 0,
        rows_written     bigint NOT NULL DEFAULT 0,
        error            jsonb,
        updated_at       timestamptz(3) NOT NULL
      )`);
    // Metrics scan a tenant's (or a job's) runs by queued_at; the INCLUDE columns make it an index-only scan.
    await queryRunner.query(
      `CREATE INDEX run_facts_tenant_queued_idx ON ${s}.run_facts (tenant_id, queued_at) INCLUDE (status, duration_ms, rows_read, rows_written)`,
    );
    await queryRunner.query(
      `CREATE INDEX run_facts_job_queued_idx ON ${s}.run_facts (tenant_id, job_id, queued_at) INCLUDE (status, duration_ms, rows_read, rows_written)`,
    );
    // seq = (attempt - 1) * 1e9 + n + 1: stable across redeliveries, ordered by attempt then line (see run-log-seq.ts).
    await queryRunner.query(`
      CREATE TABLE ${s}.run_logs (
        run_id      text NOT NULL,
        seq         bigint NOT NULL,
        tenant_id   text NOT NULL,
        job_id      text NOT NULL,
        attempt     integer NOT NULL,
        n           integer NOT NULL,
        ts          timestamptz(3) NOT NULL,
        level       text NOT NULL,
        node_id     text,
        message     text NOT NULL,
        PRIMARY KEY (run_id, seq)
      )`);
    await queryRunner.query(`CREATE INDEX run_logs_ts_idx ON ${s}.run_logs (ts)`);
    await queryRunner.query(`
      CREATE TABLE ${s}.alerts (
        id            text PRIMARY KEY,
        tenant_id     text NOT NULL,
        job_id        text,
        run_id        text,
        webhook_id    text,
        rule          text NOT NULL CHECK (rule IN ('run_failed', 'consecutive_failures', 'webhook_disabled')),
        severity      text NOT NULL CHECK (severity IN ('warning', 'critical')),
        status        text NOT NULL CHECK (status IN ('open', 'resolved')),
        message       text NOT NULL,
        occurrences   integer NOT NULL,
        first_seen_at timestamptz(3) NOT NULL,
        last_seen_at  timestamptz(3) NOT NULL,
        resolved_at   timestamptz(3)
      )`);
    await queryRunner.query(`CREATE INDEX alerts_tenant_id_idx ON ${s}.alerts (tenant_id, id DESC)`);
    await queryRunner.query(`CREATE INDEX alerts_tenant_job_id_idx ON ${s}.alerts (tenant_id, job_id, id DESC)`);
    // At most one open failure alert per job and one open webhook_disabled alert per webhook.
    await queryRunner.query(
      `CREATE UNIQUE INDEX alerts_open_job_key ON ${s}.alerts (tenant_id, job_id) WHERE status = 'open' AND rule IN ('run_failed', 'consecutive_failures')`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX alerts_open_webhook_key ON ${s}.alerts (tenant_id, webhook_id) WHERE status = 'open' AND rule = 'webhook_disabled'`,
    );
    await queryRunner.query(`
      CREATE TABLE ${s}.outbox (
        id           bigserial PRIMARY KEY,
        -- BullMQ job id of the message: the event id.
        message_id   text NOT NULL,
        payload      jsonb NOT NULL,
        created_at   timestamptz(3) NOT NULL,
        published_at timestamptz(3)
      )`);
    await queryRunner.query(`CREATE INDEX outbox_pending_idx ON ${s}.outbox (id) WHERE published_at IS NULL`);
    await queryRunner.query(
      `CREATE INDEX outbox_published_idx ON ${s}.outbox (published_at) WHERE published_at IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE ${s}.processed_events (
        event_id     text PRIMARY KEY,
        processed_at timestamptz(3) NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX processed_events_at_idx ON ${s}.processed_events (processed_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`DROP TABLE ${s}.processed_events`);
    await queryRunner.query(`DROP TABLE ${s}.outbox`);
    await queryRunner.query(`DROP TABLE ${s}.alerts`);
    await queryRunner.query(`DROP TABLE ${s}.run_logs`);
    await queryRunner.query(`DROP TABLE ${s}.run_facts`);
  }
}
