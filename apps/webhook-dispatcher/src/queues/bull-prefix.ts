/**
 * The BullMQ `prefix` of a deployment: its REDIS_PREFIX followed by `bull` (`conduit:` -> `conduit:bull`), the
 * same rule as the scheduler's and the executor's; change all or none.
 */
export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}bull`;
}
