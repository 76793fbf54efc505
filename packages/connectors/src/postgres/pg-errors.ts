/** Classifies PostgreSQL and network failures: settings to fix (config_error) or worth retrying (transient_error). */
import { ConnectorError } from '../connector-error.js';
import { isTransientNetCode, isUnknownHostCode } from '../network-steps.js';
import type { ErrorClass } from '../types.js';

// SQLSTATE classes that retrying cannot fix: data (22), constraints (23), auth (28), unknown database (3D) or
// schema (3F), syntax, missing objects and privileges (42), unsupported features (0A). Others (connection 08,
// resources 53, operator intervention 57, serialization 40) may pass on a retry.
const CONFIG_SQLSTATE_CLASSES = new Set(['28', '3D', '3F', '42', '22', '23', '0A']);

interface CodedError {
  code?: unknown;
  message?: unknown;
}

export function errorCode(err: unknown): string | undefined {
  const code = (err as CodedError | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function errorMessage(err: unknown): string {
  const message = (err as CodedError | null)?.message;
  return typeof message === 'string' && message !== '' ? message : String(err);
}

function isSqlState(code: string): boolean {
  return /^[0-9A-Z]{5}$/.test(code);
}

export function classifyPgError(err: unknown): { error_class: ErrorClass; message: string } {
  if (err instanceof ConnectorError) return { error_class: err.errorClass, message: err.message };
  const code = errorCode(err);
  const message = errorMessage(err);
  if (isUnknownHostCode(code)) return { error_class: 'config_error', message: `unknown host: ${message}` };
  if (isTransientNetCode(code)) return { error_class: 'transient_error', message };
  if (code && isSqlState(code)) {
    const configError = CONFIG_SQLSTATE_CLASSES.has(code.slice(0, 2));
    return { error_class: configError ? 'config_error' : 'transient_error', message: `${message} (SQLSTATE ${code})` };
  }
  // TLS problems (no SSL on the server, bad certificate) are settings to fix.
  if (/ssl|certificate|self[- ]signed/i.test(message)) return { error_class: 'config_error', message };
  return { error_class: 'transient_error', message };
}

/** Wraps any failure as a ConnectorError (leaving aborts as they are, so callers see the signal's reason). */
export function toConnectorError(err: unknown, signal?: AbortSignal): unknown {
  if (err instanceof ConnectorError) return err;
  if (signal?.aborted && err === signal.reason) return err;
  const { error_class, message } = classifyPgError(err);
  return new ConnectorError(message, error_class, { code: errorCode(err), cause: err });
}
