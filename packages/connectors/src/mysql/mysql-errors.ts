/** Classifies MySQL/MariaDB and network failures: settings to fix (config_error) or worth retrying (transient_error). */
import { ConnectorError } from '../connector-error.js';
import { isTransientNetCode, isUnknownHostCode } from '../network-steps.js';
import { errorCode, errorMessage } from '../postgres/pg-errors.js';
import type { ErrorClass } from '../types.js';

// Server errors that a retry may get past: too many connections, lock wait timeout, deadlock, server shutdown,
// connection killed, query interrupted, read-only/failover states.
const TRANSIENT_ERRNOS = new Set([1040, 1053, 1205, 1213, 1317, 1290, 2006, 2013]);
// SQLSTATE classes that retrying cannot fix (auth 28, syntax/missing object/privilege 42, data 22, constraint 23,
// unknown database 3D, unsupported 0A); server "HY000" errors are decided by errno above, else transient.
const CONFIG_SQLSTATE_CLASSES = new Set(['28', '42', '22', '23', '3D', '0A']);

interface MysqlErrorFields {
  errno?: unknown;
  sqlState?: unknown;
  fatal?: unknown;
}

export function classifyMysqlError(err: unknown): { error_class: ErrorClass; message: string } {
  if (err instanceof ConnectorError) return { error_class: err.errorClass, message: err.message };
  const code = errorCode(err);
  const message = errorMessage(err);
  if (isUnknownHostCode(code)) return { error_class: 'config_error', message: `unknown host: ${message}` };
  if (isTransientNetCode(code))
    return {
      error_class: 'transient_error',
      message: code && !message.includes(code) ? `${code}: ${message}` : message,
    };
  const { errno, sqlState } = (err ?? {}) as MysqlErrorFields;
  if (typeof errno === 'number' && typeof sqlState === 'string') {
    const configError = !TRANSIENT_ERRNOS.has(errno) && CONFIG_SQLSTATE_CLASSES.has(sqlState.slice(0, 2));
    return {
      error_class: configError ? 'config_error' : 'transient_error',
      message: `${message} (${code ?? errno}, SQLSTATE ${sqlState})`,
    };
  }
  if (/ssl|tls|certificate|self[- ]signed/i.test(message)) return { error_class: 'config_error', message };
  return { error_class: 'transient_error', message };
}

/** Wraps any failure as a ConnectorError (leaving aborts as they are, so callers see the signal's reason). */
export function toMysqlConnectorError(err: unknown, signal?: AbortSignal): unknown {
  if (err instanceof ConnectorError) return err;
  if (signal?.aborted && err === signal.reason) return err;
  const { error_class, message } = classifyMysqlError(err);
  return new ConnectorError(message, error_class, { code: errorCode(err), cause: err });
}
