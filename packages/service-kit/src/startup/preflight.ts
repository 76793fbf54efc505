import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { StartupError, redactedUrl } from './startup-error.js';

/** A port the service will listen on, with the variable that moves it. */
export interface ListenPort {
  variable: string;
  port: number;
  host: string;
}

export interface PreflightOptions {
  /** PostgreSQL, for the services that keep tables (not the executor). */
  databaseUrl?: string;
  redisUrl: string;
  /** Every port the service listens on; port 0 (any free one) is not checked. */
  ports: ListenPort[];
  /** How long each dependency gets to answer. Default 3000 ms. */
  timeoutMs?: number;
}

/** Error codes of a host name that does not resolve. */
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);

interface CodedError {
  code?: string;
  message: string;
}

async function checkPort({ variable, port, host }: ListenPort): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: CodedError) => {
      const where = `port ${port} on ${host} (${variable})`;
      if (err.code === 'EADDRINUSE')
        reject(
          new StartupError(
            'port',
            `${where} is already in use: stop the process that holds it, or set ${variable} to a free port`,
          ),
        );
      else if (err.code === 'EACCES')
        reject(
          new StartupError('port', `${where} may not be opened by this user: set ${variable} to a port above 1023`),
        );
      else if (err.code === 'EADDRNOTAVAIL')
        reject(new StartupError('port', `${where}: ${host} is not an address of this machine: check the host setting`));
      else
        reject(
          new StartupError(
            'port',
            `${where} cannot be opened (${err.code ?? err.message}): check ${variable} and the host setting`,
          ),
        );
    });
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

/** What to say about an error of connecting to `what` (PostgreSQL, Redis) at `address`, configured by `variable`. */
function unreachable(
  dependency: string,
  what: string,
  address: string,
  variable: string,
  err: CodedError,
): StartupError {
  const code = err.code ?? '';
  const host = (() => {
    try {
      return new URL(address).hostname;
    } catch {
      return address;
    }
  })();
  if (code === 'ECONNREFUSED')
    return new StartupError(
      dependency,
      `${what} at ${address} refused the connection: check that ${what} is running there and the host and port in ${variable}`,
    );
  if (UNRESOLVED.has(code))
    return new StartupError(
      dependency,
      `${what} host "${host}" does not resolve (${variable} is ${address}): check the host name in ${variable} and DNS`,
    );
  if (
    code === 'ETIMEDOUT' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH' ||
    /timeout|timed out/i.test(err.message)
  ) {
    return new StartupError(
      dependency,
      `${what} at ${address} did not answer in time: check the host and port in ${variable} and any firewall between`,
    );
  }
  return new StartupError(
    dependency,
    `${what} at ${address} could not be used (${err.message.split('\n')[0]}): check ${variable}`,
  );
}

async function checkDatabase(url: string, timeoutMs: number): Promise<void> {
  const address = redactedUrl(url);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  // A server that drops the connection later must not crash the process with an unhandled 'error'.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    const e = err as CodedError;
    if (e.code === '28P01' || e.code === '28000')
      throw new StartupError(
        'database',
        `PostgreSQL at ${address} refused the credentials: check the user and password in DATABASE_URL`,
      );
    if (e.code === '3D000')
      throw new StartupError(
        'database',
        `PostgreSQL at ${address}: the database does not exist: create it, or fix its name in DATABASE_URL`,
      );
    throw unreachable('database', 'PostgreSQL', address, 'DATABASE_URL', e);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function checkRedis(url: string, timeoutMs: number): Promise<void> {
  const address = redactedUrl(url);
  // One attempt, no reconnecting and no queued commands: a failure here is the answer. disconnectTimeout: ioredis
  // otherwise keeps a 2 s timer alive after a refused connection.
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    disconnectTimeout: 100,
  });
  let lastError: CodedError | undefined;
  // ioredis reports the socket's error (with its code) as an event, then rejects connect() with a generic one.
  redis.on('error', (err: CodedError) => (lastError ??= err));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    const e = lastError ?? (err as CodedError);
    if (/NOAUTH|WRONGPASS|invalid password/i.test(e.message))
      throw new StartupError('redis', `Redis at ${address} refused the credentials: check the password in REDIS_URL`);
    throw unreachable('redis', 'Redis', address, 'REDIS_URL', e);
  } finally {
    redis.disconnect();
  }
}

/**
 * What a service needs before it does anything, checked in the order a newcomer would fix them: its ports are free,
 * PostgreSQL and Redis answer. The first failure is a {@link StartupError} whose message is the one line to print.
 */
export async function preflight(opts: PreflightOptions): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 3000;
  for (const port of opts.ports) await checkPort(port);
  if (opts.databaseUrl) await checkDatabase(opts.databaseUrl, timeoutMs);
  await checkRedis(opts.redisUrl, timeoutMs);
}
