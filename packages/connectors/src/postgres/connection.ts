/** Opening, cancelling and closing pg clients for a postgres connector config. */
import pg, { escapeIdentifier } from 'pg';
import { checkedAddress, tlsServerName } from '../network/target-check.js';
import type { PostgresConfig } from './postgres.config.js';
import { boundServerMessages } from './message-bound.js';

/** Used when the config sets no `connect_timeout_ms`, so a data-plane call never waits on a dead host for ever. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
const CANCEL_GRACE_MS = 2_000;
const CLOSE_GRACE_MS = 1_000;

export function clientConfig(cfg: PostgresConfig, overrides: pg.ClientConfig = {}): pg.ClientConfig {
  return {
    host: cfg.host,
    port: cfg.port,
    database: cfg.database,
    user: cfg.user,
    password: cfg.password,
    ssl: sslOption(cfg),
    connectionTimeoutMillis: cfg.connect_timeout_ms ?? DEFAULT_CONNECT_TIMEOUT_MS,
    application_name: 'conduit',
    ...overrides,
  };
}

function sslOption(cfg: PostgresConfig): pg.ClientConfig['ssl'] {
  switch (cfg.ssl) {
    case 'disable':
      return false;
    case 'require': // encrypted, like libpq's sslmode=require: the certificate is not verified
      return { rejectUnauthorized: false, servername: tlsServerName(cfg.host) };
    case 'verify-full': // the connection goes to the checked address; the certificate must still name the host
      return { rejectUnauthorized: true, servername: tlsServerName(cfg.host) };
  }
}

/** A new client, not yet connected; errors after connect are surfaced by the next query, not as a crash. */
export function newClient(cfg: PostgresConfig, overrides?: pg.ClientConfig): pg.Client {
  const client = new pg.Client(clientConfig(cfg, overrides));
  boundServerMessages(client);
  // Without a listener an 'error' event (e.g. the server going away while idle) would crash the process.
  client.on('error', () => undefined);
  return client;
}

/** Cuts the connection at once, also while it is still connecting (where `end()` would wait on the server). */
export function destroyClient(client: pg.Client): void {
  // pg keeps its socket at client.connection.stream, which its type declarations do not show.
  const socket = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
  socket?.destroy();
}

/** Says goodbye to the server, cutting the connection if that takes over a second (the server rolls back open work). */
export async function closeClient(client: pg.Client): Promise<void> {
  const timer = setTimeout(() => destroyClient(client), CLOSE_GRACE_MS);
  try {
    await client.end();
  } catch {
    // Already closed or broken: nothing left to release.
  } finally {
    clearTimeout(timer);
  }
}

/** The address the network policy allows for this config (resolved and checked now): clients connect there. */
export function allowedAddress(cfg: PostgresConfig): Promise<string> {
  return checkedAddress({ connectorType: 'postgres', host: cfg.host, port: cfg.port, database: cfg.database });
}

/** Connects for data-plane work, giving up (and closing) as soon as `signal` aborts. */
export async function connectClient(cfg: PostgresConfig, signal?: AbortSignal): Promise<pg.Client> {
  signal?.throwIfAborted();
  const client = newClient(cfg, { host: await allowedAddress(cfg) });
  const onAbort = () => destroyClient(client);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await client.connect();
    // Unqualified names in queries and statements resolve in the configured schema first.
    await client.query(`select set_config('search_path', $1, false)`, [`${escapeIdentifier(cfg.schema)}, public`]);
    signal?.throwIfAborted();
    return client;
  } catch (err) {
    await closeClient(client);
    throw signal?.aborted ? signal.reason : err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * While the returned disposer is not called, an abort of `signal` cancels the client's running statement on the
 * server (pg_cancel_backend from a second connection), then cuts the connection if it is still busy.
 */
export function cancelOnAbort(client: pg.Client, cfg: PostgresConfig, signal?: AbortSignal): () => void {
  if (!signal) return () => undefined;
  const onAbort = () => void cancelThenClose(client, cfg);
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

async function cancelThenClose(client: pg.Client, cfg: PostgresConfig): Promise<void> {
  // processID is set by pg after connecting but missing from its type declarations.
  const pid = (client as unknown as { processID: number | null }).processID;
  if (pid !== null) {
    // The same checked address as the client's: no second DNS answer is trusted.
    const canceller = newClient(cfg, {
      host: client.host,
      connectionTimeoutMillis: CANCEL_GRACE_MS,
      query_timeout: CANCEL_GRACE_MS,
    });
    try {
      await canceller.connect();
      await canceller.query('select pg_cancel_backend($1)', [pid]);
    } catch {
      // Best effort: closing the connection below still stops the work.
    } finally {
      await closeClient(canceller);
    }
  }
  await closeClient(client);
}
