/**
 * A postgres connection for one driver call: from the connector's pool when the call names one (the executor's
 * nodes), else a connection of its own. A pooled connection goes back clean (DISCARD ALL) or not at all.
 */
import pg, { escapeIdentifier } from 'pg';
import type { PoolScope } from '../pools/connector-pools.js';
import { takeAbortably } from '../pools/abortable-take.js';
import { allowedAddress, cancelOnAbort, clientConfig, closeClient, connectClient } from './connection.js';
import type { PostgresConfig } from './postgres.config.js';
import { TypeNames } from './type-names.js';

export interface SessionOptions {
  /** Aborting cancels the running statement on the server; the connection is then closed, never reused. */
  signal?: AbortSignal | undefined;
  /** Pools are per tenant: a call without one gets a connection of its own. */
  tenantId?: string | undefined;
  pool?: PoolScope | undefined;
}

export interface PgSession {
  client: pg.Client;
  /** The type names kept with the connection's pool (type-names.ts); none for a connection of its own. */
  typeNames?: TypeNames;
  /** Gives the connection back to its pool when clean, else closes it; call once, when the work is done. */
  close(): Promise<void>;
}

/** Connects (or takes a pooled connection), giving up as soon as `signal` aborts; errors are the driver's own. */
export async function openSession(cfg: PostgresConfig, opts: SessionOptions): Promise<PgSession> {
  const { signal, tenantId, pool: scope } = opts;
  if (!scope || tenantId === undefined || tenantId === '') {
    const client = await connectClient(cfg, signal);
    const stopCancelling = cancelOnAbort(client, cfg, signal);
    return {
      client,
      close: async () => {
        stopCancelling();
        await closeClient(client);
      },
    };
  }
  const use = scope.pools.use('postgres', tenantId, scope.connectorId, cfg, () =>
    newPool(cfg, scope.pools.max, scope.pools.idleMs),
  );
  let client: pg.PoolClient;
  try {
    client = await takeClient(use.pool, signal);
  } catch (err) {
    use.done();
    throw err;
  }
  const stopCancelling = cancelOnAbort(client, cfg, signal);
  return {
    client,
    typeNames: typeNamesOf(use.pool),
    close: async () => {
      stopCancelling();
      try {
        await giveBack(client, cfg, signal?.aborted === true);
      } finally {
        use.done();
      }
    },
  };
}

/** Each pool's type names, gone with the pool. */
const typeNamesByPool = new WeakMap<pg.Pool, TypeNames>();

function typeNamesOf(pool: pg.Pool): TypeNames {
  let names = typeNamesByPool.get(pool);
  if (!names) typeNamesByPool.set(pool, (names = new TypeNames()));
  return names;
}

/** pg's client state, which its type declarations do not show. */
interface ClientState {
  _txStatus?: string | null;
  _queryable?: boolean;
  _ending?: boolean;
  _activeQuery?: unknown;
  _queryQueue?: unknown[];
}

/** Idle, outside any transaction, nothing queued: the state a clean DISCARD ALL can follow. */
function reusable(client: pg.Client): boolean {
  const state = client as unknown as ClientState;
  return (
    state._txStatus === 'I' &&
    state._queryable !== false &&
    state._ending !== true &&
    (state._activeQuery ?? null) === null &&
    (state._queryQueue?.length ?? 0) === 0
  );
}

/**
 * A connection after a cancel, in a transaction (failed or left open) or mid-COPY is closed; any other is reset
 * (settings, temporary tables, prepared statements, role, locks) and goes back only if that succeeds.
 */
async function giveBack(client: pg.PoolClient, cfg: PostgresConfig, aborted: boolean): Promise<void> {
  if (aborted || !reusable(client)) {
    client.release(true);
    return;
  }
  try {
    // Also puts back the search_path, set when connecting (startupOptions).
    await client.query('discard all');
    client.release();
  } catch (err) {
    client.release(err instanceof Error ? err : true);
  }
}

/**
 * Unqualified names resolve in the configured schema first. Given when connecting, the setting is the session's
 * default, which DISCARD ALL returns to: no second round trip per reuse. The server splits `options` at spaces
 * and takes a backslash as an escape, so both are escaped.
 */
function startupOptions(cfg: PostgresConfig): string {
  const searchPath = `${escapeIdentifier(cfg.schema)}, public`.replace(/[\\\s]/g, (c) => `\\${c}`);
  return `-c search_path=${searchPath}`;
}

/** Waits for a pooled connection; on abort stops waiting at once (the connection, when it comes, goes back). */
async function takeClient(pool: pg.Pool, signal: AbortSignal | undefined): Promise<pg.PoolClient> {
  signal?.throwIfAborted();
  return takeAbortably(pool.connect(), signal);
}

/** A pool whose every new connection goes to an address the network policy checks then, as a lone connection does. */
function newPool(cfg: PostgresConfig, max: number, idleMs: number): pg.Pool & { end(): Promise<void> } {
  class CheckedClient extends pg.Client {
    constructor() {
      // The pool's own options would carry its wait limit into the client: the client takes the config's.
      super(clientConfig(cfg, { options: startupOptions(cfg) }));
      // Without a listener an 'error' event (the server going away while idle) would crash the process.
      this.on('error', () => undefined);
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error) => void): void;
    override connect(callback?: (err: Error) => void): Promise<pg.Client> | undefined {
      const connecting = this.connectChecked();
      if (!callback) return connecting;
      connecting.then(
        () => callback(undefined as unknown as Error),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
      return undefined;
    }

    private async connectChecked(): Promise<pg.Client> {
      this.host = await allowedAddress(cfg);
      await super.connect();
      return this;
    }
  }
  const pool = new pg.Pool({ max, idleTimeoutMillis: idleMs, allowExitOnIdle: true, Client: CheckedClient });
  // An idle connection's error (the server restarting) removes it from the pool; nothing else to do.
  pool.on('error', () => undefined);
  return pool;
}
