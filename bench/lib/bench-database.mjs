// A database of the bench's own on the stack's PostgreSQL server, for connectors to read and write: connectors may
// never reach the platform's own database (and the stack must allow private networks, the server being local).
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** Creates it; answers { name, url, drop() } (drop forces other sessions off, and never throws). */
export async function createBenchDatabase(stack) {
  const name = `conduit_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const urlOf = (database) => Object.assign(new URL(stack.databaseUrl), { pathname: `/${database}` }).toString();
  const admin = new pg.Client({ connectionString: urlOf('postgres') });
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
  return { name, url: urlOf(name), drop };
}
