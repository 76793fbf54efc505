import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quotedSchemaOf } from '../database/schema-name.js';

/**
 * The scheduler's tables. The schema comes from the data source (default `scheduler`), so integration tests can
 * migrate a fresh schema of their own.
 */
export class Init1732300000000 implements MigrationInterface {
  name = 'Init1732300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`
      CREATE TABLE ${s}.jobs (
        id                 text PRIMARY KEY,
        tenant_id          text NOT NULL,
        name               text NOT NULL,
        description        text,
        pipeline_id        text NOT NULL,
        schedule           text,
        timezone           text NOT NULL,
        status             text NOT NULL CHECK (status IN ('active', 'paused')),
        concurrency_policy text NOT NULL CHECK (concurrency_policy IN ('allow', 'forbid', 'replace')),
        parameters         jsonb NOT NULL,
        revision           integer NOT NULL DEFAULT 1,
        created_at         timestamptz(3) NOT NULL,
        updated_at         timestamptz(3) NOT NULL,
        CONSTRAINT jobs_tenant_name_key UNIQUE (tenant_id, name)
      )`);
    // Newest-first lists, unfiltered and by each filter; the pipeline index also answers jobs.usage.
    await queryRunner.query(`CREATE INDEX jobs_tenant_id_idx ON ${s}.jobs (tenant_id, id DESC)`);
    await queryRunner.query(`CREATE INDEX jobs_tenant_pipeline_id_idx ON ${s}.jobs (tenant_id, pipeline_id, id DESC)`);
    await queryRunner.query(`CREATE INDEX jobs_tenant_status_id_idx ON ${s}.jobs (tenant_id, status, id DESC)`);
    await queryRunner.query(`
      CREATE TABLE ${s}.runs (
        id               text PRIMARY KEY,
        tenant_id        text NOT NULL,
        job_id           text NOT NULL REFERENCES ${s}.jobs (id) ON DELETE CASCADE,
        pipeline_id      text NOT NULL,
        pipeline_version integer NOT NULL,
        dag              jsonb NOT NULL,
        status           text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
        trigger          text NOT NULL CHECK (trigger IN ('manual', 'schedule', 'retry')),
        parameters       jsonb NOT NULL,
        attempt          integer NOT NULL DEFAULT 1,
        queued_at        timestamptz(3) NOT NULL,
        started_at       timestamptz(3),
        finished_at      timestamptz(3),
        error            jsonb,
        nodes            jsonb NOT NULL,
        stats            jsonb NOT NULL,
        last_event_at    timestamptz(3) NOT NULL,
        -- The BullMQ job id of the cron tick that made the run: a tick processed twice still makes one run.
        tick_id          text,
        -- How often the reaper re-enqueued a run whose queue job was lost.
        requeues         integer NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`CREATE INDEX runs_job_id_idx ON ${s}.runs (job_id, id DESC)`);
    await queryRunner.query(`CREATE INDEX runs_job_status_id_idx ON ${s}.runs (job_id, status, id DESC)`);
    // Active runs: the concurrency policy per job, and the reaper's sweep over every job.
    await queryRunner.query(
      `CREATE INDEX runs_active_idx ON ${s}.runs (job_id, status) WHERE status IN ('queued', 'running')`,
    );
    await queryRunner.query(
      `CREATE INDEX runs_active_last_event_idx ON ${s}.runs (last_event_at) WHERE status IN ('queued', 'running')`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX runs_tick_id_key ON ${s}.runs (tick_id) WHERE tick_id IS NOT NULL`);
    await queryRunner.query(`
      CREATE TABLE ${s}.outbox (
        id           bigserial PRIMARY KEY,
        kind         text NOT NULL CHECK (kind IN ('run_command', 'run_event')),
        -- BullMQ job id of the message: the run id for a command, the event id for an event.
        message_id   text NOT NULL,
        run_id       text NOT NULL,
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
    await queryRunner.query(`DROP TABLE ${s}.runs`);
    await queryRunner.query(`DROP TABLE ${s}.jobs`);
  }
}
