/**
 * The BullMQ `prefix` of a deployment: its REDIS_PREFIX followed by `bull` (`conduit:` -> `conduit:bull`). Every
 * service applies the same rule (see the scheduler's bull-prefix.ts); change all or none.
 */
export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}bull`;
}
