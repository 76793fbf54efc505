/**
 * A mysql connection for one driver call: from the connector's pool when the call names one (the executor's nodes),
 * else a connection of its own. A pooled connection goes back reset (COM_RESET_CONNECTION, then its character set and
 * database set again) or not at all.
 */
import { Socket } from 'node:net';
import mysql from 'mysql2';
import type { PoolScope } from '../pools/connector-pools.js';
import { takeAbortably } from '../pools/abortable-take.js';
import { checkedAddress } from '../network/target-check.js';
import { closeMysql, connectMysql, connectionOptions, killOnAbort, MYSQL_CHARSET } from './connection.js';
import type { MysqlConfig } from './mysql.config.js';

export interface MysqlSessionOptions {
  /** Aborting kills the running query on the server; the connection is then closed, never reused. */
  signal?: AbortSignal | undefined;
  /** Pools are per tenant: a call without one gets a connection of its own. */
  tenantId?: string | undefined;
  pool?: PoolScope | undefined;
}

/**
 * How the work on a connection ended: `finished` (it may be reused), `failed` (an error: closed politely) or
 * `stopped` (rows left unread on the wire: cut at once).
 */
export type SessionEnd = 'finished' | 'failed' | 'stopped';

export interface MysqlSession {
  connection: mysql.Connection;
  /** Call once, when the work is done. */
  close(end: SessionEnd): Promise<void>;
}

/** Connects (or takes a pooled connection), giving up as soon as `signal` aborts; errors are the driver's own. */
export async function openMysqlSession(cfg: MysqlConfig, opts: MysqlSessionOptions): Promise<MysqlSession> {
  const { signal, tenantId, pool: scope } = opts;
  if (!scope || tenantId === undefined || tenantId === '') {
    const connection = await connectMysql(cfg, signal);
    const stopKilling = killOnAbort(connection, cfg, signal);
    return {
      connection,
      close: async (end) => {
        stopKilling();
        if (end === 'stopped') connection.destroy();
        else await closeMysql(connection);
      },
    };
  }
  const use = scope.pools.use('mysql', tenantId, scope.connectorId, cfg, () =>
    newPool(cfg, scope.pools.max, scope.pools.idleMs),
  );
  let connection: mysql.PoolConnection;
  try {
    connection = await takeConnection(use.pool, signal);
  } catch (err) {
    use.done();
    throw err;
  }
  const stopKilling = killOnAbort(connection, cfg, signal);
  return {
    connection,
    close: async (end) => {
      stopKilling();
      try {
        if (end === 'finished' && signal?.aborted !== true && (await reset(connection, cfg))) connection.release();
        else connection.destroy();
      } finally {
        use.done();
      }
    },
  };
}

/**
 * Session variables, temporary tables, user variables, prepared statements and locks go; an open transaction rolls
 * back. COM_RESET_CONNECTION keeps the current database (a `USE other` would reach the next caller) and, on MySQL,
 * falls back to the server's character set: both are set again. False when any step failed (the caller destroys it).
 */
async function reset(connection: mysql.PoolConnection, cfg: MysqlConfig): Promise<boolean> {
  const run = (send: (done: (err: mysql.QueryError | null) => void) => void) =>
    new Promise<void>((resolve, reject) => send((err) => (err ? reject(err) : resolve())));
  try {
    await run((done) => connection.reset(done));
    await run((done) => connection.query(MYSQL_CHARSET.setNames, done));
    await run((done) => connection.query(`USE ${mysql.escapeId(cfg.database)}`, done));
    return true;
  } catch {
    return false;
  }
}

/** Waits for a pooled connection; on abort stops waiting at once (the connection, when it comes, goes back). */
async function takeConnection(pool: MysqlPool, signal: AbortSignal | undefined): Promise<mysql.PoolConnection> {
  signal?.throwIfAborted();
  const pending = new Promise<mysql.PoolConnection>((resolve, reject) =>
    pool.mysql.getConnection((err, connection) => (err ? reject(err) : resolve(connection))),
  );
  return takeAbortably(pending, signal);
}

/** mysql2's pool with the `end()` the registry closes it by. */
interface MysqlPool {
  mysql: mysql.Pool;
  end(): Promise<void>;
}

/**
 * A pool whose every new connection goes to an address the network policy checks then, as a lone connection does:
 * mysql2 asks for its socket synchronously, so the socket it gets connects once the check has passed (the server
 * speaks first, so nothing is written before).
 */
function newPool(cfg: MysqlConfig, max: number, idleMs: number): MysqlPool {
  const stream = () => {
    const socket = new Socket();
    checkedAddress({ connectorType: 'mysql', host: cfg.host, port: cfg.port }).then(
      (address) => {
        if (!socket.destroyed) socket.connect({ host: address, port: cfg.port, noDelay: true });
      },
      (err: unknown) => socket.destroy(err instanceof Error ? err : new Error(String(err))),
    );
    return socket;
  };
  const pool = mysql.createPool({
    ...connectionOptions(cfg, { stream }),
    connectionLimit: max,
    maxIdle: 0,
    idleTimeout: idleMs,
    waitForConnections: true,
    queueLimit: 0,
  });
  // Without a listener an 'error' event (the server going away while idle) would crash the process.
  pool.on('connection', (connection) => connection.on('error', () => undefined));
  return {
    mysql: pool,
    end: () => new Promise<void>((resolve) => pool.end(() => resolve())),
  };
}
