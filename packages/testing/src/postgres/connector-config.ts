// A postgres connector pointed at the tests' database, as the catalog stores it and the executor opens it.
import { DATABASE_URL } from './schemas.js';

/** The config of a postgres connector for DATABASE_URL, with `extra` (a schema, a password) beside it. */
export function postgresConnectorConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const url = new URL(DATABASE_URL);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    database: url.pathname.slice(1) || 'postgres',
    user: decodeURIComponent(url.username || 'postgres'),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...extra,
  };
}
