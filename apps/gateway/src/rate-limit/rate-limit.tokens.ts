/** Nest injection token of the Redis key prefix of the rate limiter (e.g. `${REDIS_PREFIX}ratelimit:`). */
export const RATE_LIMIT_KEY_PREFIX = Symbol('RATE_LIMIT_KEY_PREFIX');
