import pg from 'pg';
import { startStack, type Stack } from '@conduit/testing';
import { create, uniqueName } from './helpers.js';
import { createTargetDatabase, type TargetDatabase } from './target-database.js';

/** What a suite on a stack with a target database starts. */
export interface TargetStackOptions {
  /**
   * The stack's environment besides CONNECTOR_ALLOW_PRIVATE_NETWORKS (the target database is on this machine), or a
   * function making it when the stack is about to start (a folder of its own, say).
   */
  env?: Record<string, string> | (() => Promise<Record<string, string>>);
  /** Fills the target database before the stack starts. */
  prepare?: (db: pg.Client) => Promise<void>;
  /** How long the setup may take. Default 120 000 ms. */
  timeoutMs?: number;
}

/** The stack, the target database, a client on it, and a postgres connector to it. */
export interface TargetStack {
  stack: Stack;
  targetDb: TargetDatabase;
  db: pg.Client;
  connectorId: string;
}

/**
 * Registers the suite's beforeAll (target database, then the stack, then the connector) and afterAll (all gone).
 * The handle is filled in once the beforeAll ran: tests and hooks may use it, module code may not.
 */
export function useTargetStack(options: TargetStackOptions = {}): TargetStack {
  const target: Partial<TargetStack> = {};
  beforeAll(async () => {
    const targetDb = (target.targetDb = await createTargetDatabase());
    const db = (target.db = new pg.Client({ connectionString: targetDb.url }));
    await db.connect();
    await options.prepare?.(db);
    const env = typeof options.env === 'function' ? await options.env() : options.env;
    const stack = (target.stack = await startStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true', ...env }));
    const connector = { name: uniqueName('pg'), type: 'postgres', config: targetDb.config() };
    target.connectorId = (await create(stack, '/v2/connectors', connector)).id;
  }, options.timeoutMs ?? 120_000);
  afterAll(async () => {
    await target.db?.end();
    await target.stack?.stop();
    await target.targetDb?.drop();
  });
  return target as TargetStack;
}
