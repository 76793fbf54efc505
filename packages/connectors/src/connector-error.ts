import type { ErrorClass } from './types.js';

/** An error from a driver that says whether retrying can help; its message never holds a secret. */
export class ConnectorError extends Error {
  readonly errorClass: ErrorClass;
  /** The server's error code where it gave one (e.g. a PostgreSQL SQLSTATE). */
  readonly code: string | undefined;

  constructor(message: string, errorClass: ErrorClass, options?: { code?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConnectorError';
    this.errorClass = errorClass;
    this.code = options?.code;
  }
}
