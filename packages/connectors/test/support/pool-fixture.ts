/**
 * The pool tests' set-up: fresh connector pools for each test, closed after it; a first-row read through them, and
 * which server connection served it.
 */
import { waitFor } from '@conduit/testing';
import { ConnectorPools, type ConnectorDriver, type PoolScope } from '../../src/index.js';
import type { SqlSandbox } from './sql-sandbox.js';

export interface PoolReadOptions {
  tenantId?: string;
  config?: Record<string, unknown>;
  pool?: PoolScope;
}

export interface PoolFixture {
  /** The test's pools. */
  pools: () => ConnectorPools;
  /** Closes the test's pools and puts new ones in their place, closing a pool left idle for `idleMs`. */
  reopen: (idleMs: number) => Promise<void>;
  /** The pool scope of connector `connectorId` in the test's pools. */
  scope: (connectorId?: string) => PoolScope;
  /** The first row of a pooled read (tenant t1, connector c1 and the sandbox's config unless told). */
  readOne: (query: string, opts?: PoolReadOptions) => Promise<Record<string, unknown>>;
  /** The server's id of the connection a pooled read ran on. */
  connectionId: (opts?: PoolReadOptions) => Promise<number>;
  /** Waits until the server no longer has connection `id` (`what` says which, for the timeout's message). */
  waitClosed: (id: number, what: string) => Promise<void>;
}

/** The suite's sandbox: where the pools connect, and how the server names and lists its connections. */
export type PooledServer = Pick<SqlSandbox<unknown>, 'config' | 'connectionIdSql' | 'connectionAlive'>;

/** At most 2 connections per pool (so a third caller waits), none closed for idleness within a test. */
const newPools = (idleMs = 60_000) => new ConnectorPools({ max: 2, idleMs });

export function usePools(driver: Required<Pick<ConnectorDriver, 'read'>>, sandbox: PooledServer): PoolFixture {
  let pools: ConnectorPools;
  beforeEach(() => {
    pools = newPools();
  });
  afterEach(async () => {
    await pools.closeAll();
  });
  const scope = (connectorId = 'c1'): PoolScope => ({ pools, connectorId });
  const readOne: PoolFixture['readOne'] = async (query, opts = {}) => {
    const rows: Record<string, unknown>[] = [];
    for await (const batch of driver.read(opts.config ?? sandbox.config, {
      query,
      tenantId: opts.tenantId ?? 't1',
      pool: opts.pool ?? scope(),
    }))
      rows.push(...batch);
    return rows[0] ?? {};
  };
  return {
    pools: () => pools,
    reopen: async (idleMs) => {
      await pools.closeAll();
      pools = newPools(idleMs);
    },
    scope,
    readOne,
    connectionId: async (opts) => Number((await readOne(sandbox.connectionIdSql, opts))['id']),
    waitClosed: async (id, what) => {
      await waitFor(async () => !(await sandbox.connectionAlive(id)), { what, timeoutMs: 5000 });
    },
  };
}
