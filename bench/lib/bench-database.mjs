// A database of the bench's own for connectors to read and write, on a server apart from the stack's: connectors may
// never reach the platform's own PostgreSQL server, any database of it (docs/security.md). By default the machine's
// server (BENCH_DATA_PG_URL, else E2E_PG_URL, else 127.0.0.1:5432); the stack keeps its database on a server of its
// own (@conduit/testing) and must allow private networks, the data server being local.
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** A URL of a role that may create databases on the server the benches' connectors use. */
export const DATA_SERVER_URL =
  process.env.BENCH_DATA_PG_URL ?? process.env.E2E_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** `database` on the server of `serverUrl`. */
export const databaseUrl = (database, serverUrl = DATA_SERVER_URL) =>
  Object.assign(new URL(serverUrl), { pathname: `/${database}` }).toString();

/** Creates it; answers { name, url, drop() } (drop forces other sessions off, and never throws). */
export async function createBenchDatabase(serverUrl = DATA_SERVER_URL) {
  const name = `conduit_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: databaseUrl('postgres', serverUrl) });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } catch (err) {
    await admin.end();
    throw err;
  }
  const drop = async () => {
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await admin.end().catch(() => undefined);
  };
  return { name, url: databaseUrl(name, serverUrl), drop };
}
