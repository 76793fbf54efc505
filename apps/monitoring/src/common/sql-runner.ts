import type { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '@conduit/service-kit';

/** A statement of fixed text and its values; answers its rows. */
export type SqlRunner = <R>(query: { text: string; values: unknown[] }) => Promise<R[]>;

/**
 * Outside a transaction: a named statement on the data source's pool (TypeORM's own, with its schema's
 * search_path), so each connection parses and plans a hot statement once instead of at every call.
 */
export function pooledStatements(ds: DataSource): SqlRunner {
  return <R>(query: { text: string; values: unknown[] }) => preparedQuery<R>(ds.manager, query.text, query.values);
}

/** Inside a transaction: a named statement on its connection. */
export function transactionStatements(m: EntityManager): SqlRunner {
  return <R>(query: { text: string; values: unknown[] }) => preparedQuery<R>(m, query.text, query.values);
}
