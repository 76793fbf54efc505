// Throwaway schemas on the real PostgreSQL for the database suites, and an admin client to look into them.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { connectPostgres } from '../servers.js';

export interface SchemaSandbox {
  /** Set once the suite started. */
  readonly admin: pg.Client;
  // Properties rather than methods: suites destructure them, and neither uses `this`.
  /** A schema name of its own, dropped after the suite. */
  freshSchema: () => string;
  /** Runs `close` after the suite, before the schemas are dropped (pools and apps on them). */
  closeFirst: (close: () => Promise<void>) => void;
}

/** Registers the sandbox's beforeAll and afterAll, and answers it. */
export function useSchemaSandbox(): SchemaSandbox {
  const schemas: string[] = [];
  const closers: (() => Promise<void>)[] = [];
  let admin: pg.Client | undefined;
  beforeAll(async () => {
    admin = await connectPostgres();
  });
  afterAll(async () => {
    for (const close of closers) await close();
    if (!admin) return;
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  return {
    get admin() {
      if (!admin) throw new Error('the schema sandbox has not started: use it inside a test');
      return admin;
    },
    freshSchema: () => {
      const schema = `kit_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
      schemas.push(schema);
      return schema;
    },
    closeFirst: (close) => {
      closers.push(close);
    },
  };
}
