/** A throwaway schema on the local PostgreSQL for one test suite, dropped afterwards. */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { suiteFixture } from './suite-fixture.js';

export const PG_HOST = process.env['PGHOST_TEST'] ?? '127.0.0.1';
export const PG_PORT = Number(process.env['PGPORT_TEST'] ?? 5432);

export interface PgSandbox {
  schema: string;
  /** A connector config pointing at the sandbox schema. */
  config: Record<string, unknown>;
  /** An admin connection for arranging and checking data. */
  admin: pg.Client;
  drop(): Promise<void>;
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
