import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quotedSchemaOf } from '../database/schema-name.js';

/**
 * Each node's output columns, by node id, beside the run's `nodes` (issue 15). A column of its own, not a field of
 * each node in `nodes`: that array is rewritten by every node report, and schemas (up to 1,000 columns a node) would
 * be rewritten with it. A constant default makes the ADD instant on a large table.
 */
export class RunNodeColumns1764025000000 implements MigrationInterface {
  name = 'RunNodeColumns1764025000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`ALTER TABLE ${s}.runs ADD COLUMN node_columns jsonb NOT NULL DEFAULT '{}'::jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = quotedSchemaOf(queryRunner.connection);
    await queryRunner.query(`ALTER TABLE ${s}.runs DROP COLUMN node_columns`);
  }
}
