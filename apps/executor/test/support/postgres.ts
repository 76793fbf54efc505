// A throwaway PostgreSQL schema per suite, and the postgres connector config that points into it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import pg from 'pg';
import { DATABASE_URL, postgresConnectorConfig } from '@conduit/testing';

export { DATABASE_URL };

/** Fails loudly when PostgreSQL is not there, instead of letting every test time out. */
export async function connectPg(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`PostgreSQL is required at ${DATABASE_URL} for these tests: ${String(err)}`, { cause: err });
  }
  return client;
}

/** Connects and creates the suite's schema, with the connection's search path in it. */
export async function openSchema(schema: string): Promise<pg.Client> {
  const db = await connectPg();
  await db.query(`create schema ${schema}`);
  await db.query(`set search_path to ${schema}`);
  return db;
}

/** Drops the suite's schema and closes its connection; nothing to do when the suite never connected. */
export async function dropSchema(db: pg.Client | undefined, schema: string): Promise<void> {
  if (!db) return;
  await db.query(`drop schema if exists ${schema} cascade`);
  await db.end();
}

export interface SuiteSchema {
  schema: string;
  /** The postgres connector config pointing into the schema. */
  config: Record<string, unknown>;
  /** The suite's connection, its search path in the schema: open from the suite's beforeAll on. */
  readonly db: pg.Client;
}

/** A throwaway schema for the suite: opened before its tests (`setUp` then makes its tables), dropped after them. */
export function useSuiteSchema(setUp: (db: pg.Client) => Promise<void> = async () => undefined): SuiteSchema {
  const schema = uniqueSchema();
  let db: pg.Client | undefined;
  beforeAll(async () => {
    db = await openSchema(schema);
    await setUp(db);
  });
  afterAll(() => dropSchema(db, schema));
  return {
    schema,
    config: connectorConfig(schema),
    get db() {
      if (!db) throw new Error("the suite's schema opens in its beforeAll");
      return db;
    },
  };
}

export function uniqueSchema(): string {
  return `executor_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

/** The postgres connector config of the suite's schema. */
export function connectorConfig(schema: string): Record<string, unknown> {
  return postgresConnectorConfig({ schema });
}

export async function count(client: pg.Client, table: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(`select count(*) as n from ${table}`);
  return Number(rows[0]!.n);
}
