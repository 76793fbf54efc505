import type { Logger } from 'pino';
import { QueryFailedError } from 'typeorm';

/**
 * The hook handleRpc calls for an error that is not a domain error. Logs what identifies the fault but never
 * a failed query's parameters: they may hold connector configs.
 */
export function reportUnexpected(logger: Logger, pattern: string): (err: unknown) => void {
  return (err) => {
    if (err instanceof QueryFailedError) {
      const driverError = err.driverError as { code?: unknown };
      logger.error(
        { pattern, err: { type: err.name, message: err.message, code: driverError.code, stack: err.stack } },
        'RPC handler failed',
      );
      return;
    }
    logger.error({ pattern, err }, 'RPC handler failed');
  };
}
