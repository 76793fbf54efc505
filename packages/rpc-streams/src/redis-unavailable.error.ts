/**
 * The client's Redis connection is down. Either the request was not sent (failing at once, rather than queueing it
 * until Redis returns, answers the caller quickly and never runs a request after its caller was told it failed), or
 * it was sent and its reply can no longer arrive (pub/sub keeps nothing for a disconnected subscriber): the caller
 * learns it at once instead of at the timeout, and, as after a timeout, the request may have been carried out.
 */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';

  constructor(
    readonly pattern: string,
    readonly sent = false,
  ) {
    super(
      sent
        ? `Redis connection lost while waiting for the reply to "${pattern}"`
        : `Redis is unavailable: "${pattern}" was not sent`,
    );
  }
}
