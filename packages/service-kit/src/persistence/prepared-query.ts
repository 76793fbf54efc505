/**
 * A hot statement of fixed text as a named (prepared) statement. TypeORM sends every query unnamed, so PostgreSQL
 * parses, analyses and plans it again at every call: for the run path's CTE statements that was 40% of the server's
 * time on them (bench/runs-round-trips.mjs prints planning and execution per statement). Named, each pooled
 * connection parses one text once, and PostgreSQL keeps a generic plan once it is no dearer than the custom ones.
 *
 * Only for texts from a closed set (constants, or built once from entity metadata): each distinct text stays prepared
 * on every connection that ran it, for the connection's life. A statement whose text varies with its input (a list
 * of placeholders per row, say) goes through `m.query` as before.
 */
import { createHash } from 'node:crypto';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { QueryFailedError, type EntityManager } from 'typeorm';

/** The statement name of each text, derived from the text so one name never stands for two texts. */
const names = new Map<string, string>();

function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `conduit_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * An error PostgreSQL answered (it has a SQLSTATE) about the statement: the connection is still good. Anything else
 * may have broken it, and so does a session the server is ending (57P01-57P03: shutdown, crash, not yet accepting).
 */
const keepsConnection = (err: unknown): boolean => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^57P0[123]$/.test(code);
};

/**
 * Runs `text` with `values` as a named statement: on the manager's connection when it has one (a transaction's; a
 * released one fails as `m.query` does, never falling back to the pool, which would run it outside the
 * transaction), else on a connection of its data source's pool. Answers the rows; fails as `m.query` does: a failed
 * connect as it came, a failed statement as QueryFailedError, logged by TypeORM's logger and timed without the wait
 * for a connection.
 */
export async function preparedQuery<R = Record<string, unknown>>(
  m: EntityManager,
  text: string,
  values: readonly unknown[],
): Promise<R[]> {
  const runner = m.queryRunner;
  if (runner?.isReleased) return m.query<R[]>(text, [...values]);
  const { logger, driver } = m.connection;
  const pooled = runner ? undefined : await (driver as unknown as { master: Pool }).master.connect();
  const client = pooled ?? ((await runner!.connect()) as PoolClient);
  const query = { name: nameOf(text), text, values: values as unknown[] };
  let failure: unknown;
  // A taken connection has no listener of the pool's (TypeORM's runner adds its own): the server closing the socket
  // after the statement's error, before the release, would otherwise be an unhandled 'error' that ends the process.
  let broken: Error | undefined;
  const onBroken = (err: Error) => {
    broken ??= err;
  };
  pooled?.on('error', onBroken);
  try {
    const started = Date.now();
    const result: QueryResult = await client.query(query);
    const took = Date.now() - started;
    const slowMs = driver.options.maxQueryExecutionTime;
    if (slowMs && took > slowMs) logger.logQuerySlow(took, text, query.values);
    return result.rows as R[];
  } catch (err) {
    failure = err;
    logger.logQueryError(err as Error, text, query.values);
    // As TypeORM does, whatever the error's realm.
    throw new QueryFailedError(text, query.values, err as Error);
  } finally {
    // A connection the error may have broken leaves the pool (pg's own pool.query drops it on any error).
    pooled?.removeListener('error', onBroken);
    pooled?.release(broken ?? (failure === undefined || keepsConnection(failure) ? undefined : (failure as Error)));
  }
}
