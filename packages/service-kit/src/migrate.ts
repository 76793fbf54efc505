import { MigrationExecutor, type DataSource } from 'typeorm';
import { schemaOf } from './database.js';

/**
 * Creates the data source's schema if missing and runs its pending migrations (each in its own
 * transaction), initialising the data source first if needed. Returns the names of the migrations run.
 *
 * Replicas that start together serialise on a session-level advisory lock keyed by the schema, so a
 * migration runs once; the others wait, then find nothing pending.
 */
export async function migrate(ds: DataSource): Promise<string[]> {
  if (!ds.isInitialized) await ds.initialize();
  const schema = schemaOf(ds);
  const lockKey = `conduit.migrate:${schema}`;
  // One connection for the lock and the migrations, so a pool of size 1 cannot deadlock.
  const runner = ds.createQueryRunner('master');
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
    try {
      await runner.query(`CREATE SCHEMA IF NOT EXISTS ${ds.driver.escape(schema)}`);
      const executor = new MigrationExecutor(ds, runner);
      executor.transaction = 'each';
      const ran = await executor.executePendingMigrations();
      return ran.map((migration) => migration.name);
    } finally {
      // If this fails the connection is broken, and PostgreSQL drops a dead session's locks itself.
      await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]).catch(() => undefined);
    }
  } finally {
    await runner.release();
  }
}
