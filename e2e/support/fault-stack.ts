/**
 * The fault suites' stack: every service on a PostgreSQL and a Redis of the suite's own (stopped and killed by the
 * test, never the machine's), with a connector to a target database holding a small `orders` table and a job copying
 * it, whose concurrent runs are allowed (every trigger is a new run, 202, never a 409 for the one before).
 */
import pg from 'pg';
import {
  type OwnPostgres,
  type OwnRedis,
  type Stack,
  startOwnPostgres,
  startOwnRedis,
  startStack,
} from '@conduit/testing';
import { copyDag, createConnector, createPipelineAndJob } from './helpers.js';
import { haltLoads, haltedLoadsEnded } from './fault-load.js';
import { createTargetDatabase, type TargetDatabase } from './target-database.js';

export interface FaultStack {
  stack: Stack;
  database: OwnPostgres;
  redis: OwnRedis;
  target: TargetDatabase;
  /** A client on the target database, for the test's own tables and checks; closed by destroy(). */
  db: pg.Client;
  /** The postgres connector to the target database. */
  connectorId: string;
  jobId: string;
  /**
   * Stops the stack and its servers, and drops the target database. A load still sending (a test that failed before
   * its own stop) is halted first and its requests awaited once the stack is gone (fault-load.ts).
   */
  destroy(): Promise<void>;
}

export async function startFaultStack(extraEnv: Record<string, string> = {}): Promise<FaultStack> {
  const [database, redis, target] = await Promise.all([
    startOwnPostgres(),
    // Append-only, as docs/reliability asks of an operator, so a restart keeps the streams and queues.
    startOwnRedis({ appendOnly: true }),
    createTargetDatabase(),
  ]);
  const stack = await startStack(
    { CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_PER_MINUTE: '100000', ...extraEnv },
    { pgAdminUrl: database.adminUrl, redisUrl: redis.url },
  );
  const db = new pg.Client({ connectionString: target.url });
  await db.connect();
  await db.query('create table orders (id integer primary key)');
  await db.query('insert into orders select generate_series(1, 10)');
  const connectorId = await createConnector(stack, 'postgres', target.config(), 'pg');
  const { jobId } = await createPipelineAndJob(stack, copyDag(connectorId), { concurrency_policy: 'allow' });
  return {
    stack,
    database,
    redis,
    target,
    db,
    connectorId,
    jobId,
    async destroy() {
      haltLoads();
      await db.end();
      await stack.stop();
      await haltedLoadsEnded();
      await Promise.all([database.destroy(), redis.destroy(), target.drop()]);
    },
  };
}
