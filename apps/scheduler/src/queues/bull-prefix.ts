/**
 * The BullMQ `prefix` of a deployment: its REDIS_PREFIX followed by `bull` (`conduit:` -> `conduit:bull`, so keys
 * read `conduit:bull:runs:...`). Two stacks with different prefixes never share a queue. The executor applies the
 * same rule; change both or neither.
 */
export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}bull`;
}
