import type { Logger } from 'pino';
import { asDependencyUnavailable } from '../errors/dependency-errors.js';

/**
 * Runs a handler's work; an error that says a dependency is unreachable (database, Redis, another service) is
 * answered as the 503 naming its class, with a warning instead of an error log: an outage is not a bug.
 */
export async function answerOutage<R>(work: Promise<R>, logger: Logger, pattern: string): Promise<R> {
  try {
    return await work;
  } catch (err) {
    const unavailable = asDependencyUnavailable(err);
    if (!unavailable) throw err;
    logger.warn(
      { pattern, dependency: unavailable.dependency, reason: err instanceof Error ? err.message : String(err) },
      'RPC handler: dependency unavailable',
    );
    throw unavailable;
  }
}
