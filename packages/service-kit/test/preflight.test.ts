import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import { StartupError, preflight } from '../src/index.js';
import { DATABASE_URL, REDIS_URL, connectPostgres, connectRedis } from './servers.js';

/** A port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function failureOf(work: Promise<void>): Promise<StartupError> {
  try {
    await work;
  } catch (err) {
    if (err instanceof StartupError) return err;
    throw err;
  }
  throw new Error('expected a StartupError');
}

let busy: Server;
let busyPort: number;

beforeAll(async () => {
  // Loud failures when the real servers are not there, rather than misleading preflight answers.
  await (await connectPostgres()).end();
  (await connectRedis()).disconnect();
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => busy.close(() => resolve()));
});

describe('preflight', () => {
  it('passes when the ports are free and PostgreSQL and Redis answer', async () => {
    await expect(
      preflight({
        databaseUrl: DATABASE_URL,
        redisUrl: REDIS_URL,
        ports: [{ variable: 'CATALOG_PORT', port: await closedPort(), host: '127.0.0.1' }],
      }),
    ).resolves.toBeUndefined();
  });

  it('names a busy port, its host and the variable that moves it', async () => {
    const err = await failureOf(
      preflight({
        databaseUrl: DATABASE_URL,
        redisUrl: REDIS_URL,
        ports: [{ variable: 'CATALOG_PORT', port: busyPort, host: '127.0.0.1' }],
      }),
    );
    expect(err.dependency).toBe('port');
    expect(err.message).toBe(
      `port ${busyPort} on 127.0.0.1 (CATALOG_PORT) is already in use: stop the process that holds it, or set CATALOG_PORT to a free port`,
    );
  });

  it('names Redis on a closed port, its address without the password, and what to check', async () => {
    const port = await closedPort();
    const started = Date.now();
    const err = await failureOf(
      preflight({ databaseUrl: DATABASE_URL, redisUrl: `redis://:s3cret@127.0.0.1:${port}`, ports: [] }),
    );
    expect(err.dependency).toBe('redis');
    expect(err.message).toBe(
      `Redis at redis://127.0.0.1:${port} refused the connection: check that Redis is running there and the host and port in REDIS_URL`,
    );
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('names a database host that does not resolve', async () => {
    const err = await failureOf(
      preflight({
        databaseUrl: 'postgres://app:s3cret@db.conduit-test.invalid:5432/conduit',
        redisUrl: REDIS_URL,
        ports: [],
      }),
    );
    expect(err.dependency).toBe('database');
    expect(err.message).toBe(
      'PostgreSQL host "db.conduit-test.invalid" does not resolve (DATABASE_URL is postgres://app@db.conduit-test.invalid:5432/conduit): check the host name in DATABASE_URL and DNS',
    );
  });

  it('names a database that does not exist', async () => {
    const url = DATABASE_URL.replace(/\/[^/]*$/, '/conduit_preflight_missing');
    const err = await failureOf(preflight({ databaseUrl: url, redisUrl: REDIS_URL, ports: [] }));
    expect(err.message).toMatch(
      /^PostgreSQL at postgres:\/\/.*\/conduit_preflight_missing: the database does not exist: create it, or fix its name in DATABASE_URL$/,
    );
  });
});
