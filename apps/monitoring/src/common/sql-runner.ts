import type { DataSource, EntityManager } from 'typeorm';
import type { Pool } from 'pg';

/** A named statement and its values; answers its rows. */
export type SqlRunner = <R>(query: { name: string; text: string; values: unknown[] }) => Promise<R[]>;

/**
 * Outside a transaction: as a named statement on the data source's pool (TypeORM's own, with its schema's
 * search_path), so each connection parses and plans a hot statement once instead of at every call.
 */
export function pooledStatements(ds: DataSource): SqlRunner {
  const pool = (ds.driver as unknown as { master: Pool }).master;
  return async <R>(query: { name: string; text: string; values: unknown[] }) => (await pool.query(query)).rows as R[];
}

/** Inside a transaction: on its connection, through TypeORM (unnamed). */
export function transactionStatements(m: EntityManager): SqlRunner {
  return <R>(query: { text: string; values: unknown[] }) => m.query<R[]>(query.text, query.values);
}
