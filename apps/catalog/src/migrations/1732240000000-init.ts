import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quotedSchemaOf } from '../database/schema-name.js';

/**
 * The catalog's tables. The schema comes from the data source (default `catalog`), so integration tests can
 * migrate a fresh schema of their own. Composite foreign keys on (tenant_id, project_id) make the database
 * itself refuse a pipeline or connector in another tenant's project, and refuse deleting a non-empty project
 * even when a create races the delete.
 */
export class Init1732240000000 implements MigrationInterface {
  name = 'Init1732240000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`
      CREATE TABLE ${s}.projects (
        id          text PRIMARY KEY,
        tenant_id   text NOT NULL,
        name        text NOT NULL,
        description text,
        template    text,
        revision    integer NOT NULL DEFAULT 1,
        created_at  timestamptz(3) NOT NULL,
        updated_at  timestamptz(3) NOT NULL,
        CONSTRAINT projects_tenant_name_key UNIQUE (tenant_id, name),
        CONSTRAINT projects_tenant_id_key UNIQUE (tenant_id, id)
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.pipelines (
        id          text PRIMARY KEY,
        tenant_id   text NOT NULL,
        project_id  text,
        name        text NOT NULL,
        description text,
        dag         json NOT NULL, -- json, not jsonb: the DAG is answered exactly as it was sent (key order included)
        version     integer NOT NULL DEFAULT 1,
        status      text NOT NULL CHECK (status IN ('valid', 'invalid')),
        validation  jsonb NOT NULL,
        created_at  timestamptz(3) NOT NULL,
        updated_at  timestamptz(3) NOT NULL,
        -- Per project, not per tenant: a template creates the same pipeline names in every project made from it.
        -- NULLS NOT DISTINCT (PostgreSQL 15+) keeps names unique among pipelines outside any project too.
        CONSTRAINT pipelines_project_name_key UNIQUE NULLS NOT DISTINCT (tenant_id, project_id, name),
        CONSTRAINT pipelines_tenant_id_key UNIQUE (tenant_id, id),
        CONSTRAINT pipelines_project_fkey FOREIGN KEY (tenant_id, project_id)
          REFERENCES ${s}.projects (tenant_id, id) ON DELETE RESTRICT
      )`);
    // Listing filtered by project; the (tenant_id, id) unique index serves the unfiltered newest-first list.
    await queryRunner.query(
      `CREATE INDEX pipelines_tenant_project_id_idx ON ${s}.pipelines (tenant_id, project_id, id DESC)`,
    );
    await queryRunner.query(`
      CREATE TABLE ${s}.connectors (
        id          text PRIMARY KEY,
        tenant_id   text NOT NULL,
        project_id  text,
        name        text NOT NULL,
        type        text NOT NULL,
        config      jsonb NOT NULL,
        status      text NOT NULL DEFAULT 'untested' CHECK (status IN ('untested', 'ok', 'failed')),
        last_test   jsonb,
        revision    integer NOT NULL DEFAULT 1,
        created_at  timestamptz(3) NOT NULL,
        updated_at  timestamptz(3) NOT NULL,
        CONSTRAINT connectors_tenant_name_key UNIQUE (tenant_id, name),
        CONSTRAINT connectors_tenant_id_key UNIQUE (tenant_id, id),
        CONSTRAINT connectors_project_fkey FOREIGN KEY (tenant_id, project_id)
          REFERENCES ${s}.projects (tenant_id, id) ON DELETE RESTRICT
      )`);
    await queryRunner.query(
      `CREATE INDEX connectors_tenant_project_id_idx ON ${s}.connectors (tenant_id, project_id, id DESC)`,
    );
    await queryRunner.query(`CREATE INDEX connectors_tenant_type_id_idx ON ${s}.connectors (tenant_id, type, id DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`DROP TABLE ${s}.connectors`);
    await queryRunner.query(`DROP TABLE ${s}.pipelines`);
    await queryRunner.query(`DROP TABLE ${s}.projects`);
  }
}
