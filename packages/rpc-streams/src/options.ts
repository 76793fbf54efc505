import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';

/** Options shared by {@link RedisStreamsServer} and {@link RedisStreamsClient}. */
export interface RedisStreamsOptions {
  /** Redis connection URL, e.g. `redis://127.0.0.1:6379/0`. */
  url: string;
  /** Prefix of every key and channel the transport uses. Default `conduit:`. */
  prefix?: string;
  /** Client: how long a caller waits for a reply before `RpcTimeoutError`. Default 5000 ms. */
  timeoutMs?: number;
  /** Server: a message read by a replica but not acked for this long is taken over by another. Default 10000 ms. */
  claimIdleMs?: number;
  /** Server: most requests handled at once by one replica. Default 64. */
  concurrency?: number;
  /** Server: how long one XREADGROUP call blocks waiting for requests. Default 5000 ms. */
  blockMs?: number;
  /** Client: approximate cap on a service's request stream (XADD MAXLEN ~). Default 10000. */
  maxStreamLength?: number;
  /** Client: bound on sending a request to Redis (ioredis commandTimeout), so a hung Redis fails a call fast. Default 0: none. */
  commandTimeoutMs?: number;
}

export type ResolvedOptions = Required<RedisStreamsOptions>;

export function resolveOptions(opts: RedisStreamsOptions): ResolvedOptions {
  const resolved: ResolvedOptions = {
    url: opts.url,
    prefix: opts.prefix ?? 'conduit:',
    timeoutMs: opts.timeoutMs ?? 5000,
    claimIdleMs: opts.claimIdleMs ?? 10_000,
    concurrency: opts.concurrency ?? 64,
    blockMs: opts.blockMs ?? 5000,
    maxStreamLength: opts.maxStreamLength ?? 10_000,
    commandTimeoutMs: opts.commandTimeoutMs ?? 0,
  };
  if (!Number.isInteger(resolved.commandTimeoutMs) || resolved.commandTimeoutMs < 0) {
    throw new Error(
      `RedisStreams option commandTimeoutMs must be a non-negative integer, got ${String(resolved.commandTimeoutMs)}`,
    );
  }
  for (const key of ['timeoutMs', 'claimIdleMs', 'concurrency', 'blockMs', 'maxStreamLength'] as const) {
    const value = resolved[key];
    if (!Number.isInteger(value) || value <= 0) {
      throw new Error(`RedisStreams option ${key} must be a positive integer, got ${String(value)}`);
    }
  }
  return resolved;
}

/** The service a pattern belongs to: its first dot-separated segment (`catalog` in `catalog.projects.create`). */
export function serviceOfPattern(pattern: string): string {
  const dot = pattern.indexOf('.');
  if (dot <= 0) {
    throw new Error(`RPC pattern "${pattern}" must look like <service>.<resource>.<verb>`);
  }
  return pattern.slice(0, dot);
}

export function requestStreamKey(prefix: string, service: string): string {
  return `${prefix}rpc:${service}`;
}

export function replyChannel(prefix: string, clientId: string): string {
  return `${prefix}rpc:reply:${clientId}`;
}

/** Unique per replica, readable in XINFO CONSUMERS: hostname-pid-random. */
export function consumerName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}
