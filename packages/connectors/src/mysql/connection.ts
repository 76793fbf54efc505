/** Opening, cancelling and closing mysql2 connections for a mysql connector config. */
import { connect as tcpConnect } from 'node:net';
import mysql from 'mysql2';
import { checkedAddress } from '../network/target-check.js';
import type { MysqlConfig } from './mysql.config.js';

const KILL_GRACE_MS = 2_000;

/**
 * The session's character set: sent in the handshake (mysql2's default, stated here) and set again after a pooled
 * connection's reset, since MySQL's COM_RESET_CONNECTION falls back to the server's default (MariaDB keeps this one).
 */
export const MYSQL_CHARSET = {
  handshake: 'UTF8MB4_UNICODE_CI',
  setNames: 'SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci',
};

export function connectionOptions(cfg: MysqlConfig, overrides: mysql.ConnectionOptions = {}): mysql.ConnectionOptions {
  return {
    host: cfg.host,
    port: cfg.port,
    database: cfg.database,
    user: cfg.user,
    password: cfg.password ?? '',
    charset: MYSQL_CHARSET.handshake,
    ssl: cfg.ssl === 'disable' ? undefined : { rejectUnauthorized: cfg.ssl === 'verify-full' },
    connectTimeout: cfg.connect_timeout_ms,
    // Timestamps are read and written as UTC; BIGINT and DECIMAL come back as exact strings (like the pg driver).
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    multipleStatements: false,
    ...overrides,
  };
}

/** The checked address each connection went to: its KILL QUERY must reach the same server, not a name's other one. */
const connectedAddress = new WeakMap<mysql.Connection, string>();

/**
 * Connects to the address the network policy checked (resolved now, or `checked` when one was already), giving up (and closing) as soon as `signal`
 * aborts. The socket is ours so that `host` stays the configured name, which TLS verifies the certificate against.
 */
export async function connectMysql(
  cfg: MysqlConfig,
  signal?: AbortSignal,
  overrides?: mysql.ConnectionOptions,
  checked?: string,
): Promise<mysql.Connection> {
  signal?.throwIfAborted();
  const address = checked ?? (await checkedAddress({ connectorType: 'mysql', host: cfg.host, port: cfg.port }));
  const stream = () => tcpConnect({ host: address, port: cfg.port, noDelay: true });
  const connection = mysql.createConnection(connectionOptions(cfg, { stream, ...overrides }));
  connectedAddress.set(connection, address);
  // Without a listener an 'error' event (e.g. the server going away while idle) would crash the process.
  connection.on('error', () => undefined);
  const onAbort = () => connection.destroy();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await new Promise<void>((resolve, reject) => connection.connect((err) => (err ? reject(err) : resolve())));
    signal?.throwIfAborted();
    return connection;
  } catch (err) {
    connection.destroy();
    throw signal?.aborted ? signal.reason : err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Says goodbye, cutting the connection if that takes over a second. */
export async function closeMysql(connection: mysql.Connection): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      connection.destroy();
      resolve();
    }, 1_000);
    connection.end(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** While the disposer is not called, an abort of `signal` kills the running query on the server, then the connection. */
export function killOnAbort(connection: mysql.Connection, cfg: MysqlConfig, signal?: AbortSignal): () => void {
  if (!signal) return () => undefined;
  const onAbort = () => void killThenClose(connection, cfg);
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

/** A pooled connection's socket was connected (by pool.ts) to a checked address: the one it is connected to now. */
function socketAddressOf(connection: mysql.Connection): string | undefined {
  return (connection as unknown as { stream?: { remoteAddress?: string } }).stream?.remoteAddress;
}

async function killThenClose(connection: mysql.Connection, cfg: MysqlConfig): Promise<void> {
  const { threadId } = connection;
  if (threadId !== null && threadId !== undefined) {
    try {
      // A thread id names a session on one server: a name resolving to several must not send the kill elsewhere.
      const killer = await connectMysql(
        cfg,
        AbortSignal.timeout(KILL_GRACE_MS),
        { connectTimeout: KILL_GRACE_MS },
        connectedAddress.get(connection) ?? socketAddressOf(connection),
      );
      await killer
        .promise()
        .query(`KILL QUERY ${Number(threadId)}`)
        .catch(() => undefined);
      await closeMysql(killer);
    } catch {
      // Best effort: destroying the connection below still stops our side.
    }
  }
  connection.destroy();
}
