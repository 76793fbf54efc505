/**
 * How a node reports SQL the checker refused (packages/connectors duckdb/user-sql.ts), or any other setting a
 * connector says is wrong: a config_error that no retry can fix, its message saying what is not allowed (the run's
 * error names the node: `node "<id>" failed: ...`).
 */
import { ConnectorError } from '@conduit/connectors';
import { NodeFailure } from '../node-failure.js';

/** `err` as a config_error NodeFailure when a connector (or the SQL checker) said the settings are wrong; else as is. */
export function asConfigError(err: unknown, subject?: string): unknown {
  if (!(err instanceof ConnectorError) || err.errorClass !== 'config_error') return err;
  const message = subject === undefined ? err.message : `${subject} ${err.message}`;
  return new NodeFailure(message, false, err.code ?? 'config_error');
}
