/** A throwaway schema on the local PostgreSQL for one test suite, dropped afterwards. */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { SqlSandbox } from './sql-sandbox.js';
import { suiteFixture } from './suite-fixture.js';

export const PG_HOST = process.env['PGHOST_TEST'] ?? '127.0.0.1';
export const PG_PORT = Number(process.env['PGPORT_TEST'] ?? 5432);

export interface PgSandbox extends SqlSandbox<pg.Client> {
  schema: string;
  /**
   * Whether a session other than the admin's shows a statement containing `text`: the one it runs, or with
   * `active: false` also the last one of an idle connection; whether the server still runs, or a client still holds, ours.
   */
  sessionShows: (text: string, opts?: { active?: boolean }) => Promise<boolean>;
}

export async function createPgSandbox(): Promise<PgSandbox> {
  const admin = new pg.Client({
    host: PG_HOST,
    port: PG_PORT,
    user: 'postgres',
    database: 'postgres',
    connectionTimeoutMillis: 5000,
  });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`these tests need PostgreSQL at ${PG_HOST}:${PG_PORT} (user postgres): ${(err as Error).message}`, {
      cause: err,
    });
  }
  const schema = `conduit_connectors_${randomUUID().replace(/-/g, '')}`;
  await admin.query(`create schema ${pg.escapeIdentifier(schema)}`);
  // The admin arranges and checks data where the connector's config points.
  await admin.query(`set search_path to ${pg.escapeIdentifier(schema)}`);
  return {
    schema,
    admin,
    config: { host: PG_HOST, port: PG_PORT, database: 'postgres', user: 'postgres', schema },
    sessionShows: async (text, { active = true } = {}) => {
      const { rows } = await admin.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
         where query like '%' || $1 || '%' and pid <> pg_backend_pid() and ($2::boolean is false or state = 'active')`,
        [text, active],
      );
      return rows[0]!.n > 0;
    },
    connectionIdSql: 'select pg_backend_pid() as id',
    connectionAlive: async (pid) => {
      const { rows } = await admin.query<{ n: number }>(
        'select count(*)::int as n from pg_stat_activity where pid = $1',
        [pid],
      );
      return rows[0]!.n > 0;
    },
    async drop() {
      await admin.query(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`);
      await admin.end();
    },
  };
}

/** The suite's sandbox schema, made before its tests and dropped after them. */
export const usePgSandbox = (): PgSandbox => suiteFixture(createPgSandbox, (sandbox) => sandbox.drop());

// A port nothing listens on, for the tests that import it from here.
export { freePort } from '@conduit/testing';
