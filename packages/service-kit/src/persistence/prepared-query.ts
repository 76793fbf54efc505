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
 * Runs `text` with `values` as a named statement: on the manager's connection when it has one (a transaction's),
 * else on its data source's pool. Answers the rows; fails as `m.query` does (QueryFailedError, logged the same way).
 */
export async function preparedQuery<R = Record<string, unknown>>(
  m: EntityManager,
  text: string,
  values: readonly unknown[],
): Promise<R[]> {
  const query = { name: nameOf(text), text, values: values as unknown[] };
  const { logger, driver } = m.connection;
  const started = Date.now();
  try {
    const runner = m.queryRunner;
    const result: QueryResult =
      runner && !runner.isReleased
        ? await ((await runner.connect()) as PoolClient).query(query)
        : await (driver as unknown as { master: Pool }).master.query(query);
    const took = Date.now() - started;
    const slowMs = driver.options.maxQueryExecutionTime;
    if (slowMs && took > slowMs) logger.logQuerySlow(took, text, query.values);
    return result.rows as R[];
  } catch (err) {
    logger.logQueryError(err instanceof Error ? err : String(err), text, query.values);
    throw new QueryFailedError(text, query.values, err instanceof Error ? err : new Error(String(err)));
  }
}
