/**
 * The request was not sent: the client's Redis connection is down (reconnecting). Failing at once, rather than
 * queueing the request until Redis returns, answers the caller quickly and never runs a request after its caller
 * was told it failed.
 */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';

  constructor(readonly pattern: string) {
    super(`Redis is unavailable: "${pattern}" was not sent`);
  }
}
