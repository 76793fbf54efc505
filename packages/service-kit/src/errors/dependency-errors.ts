import { QueryFailedError } from 'typeorm';
import { AppError, type Dependency } from '@conduit/contracts';
import { RedisUnavailableError, RpcTimeoutError } from '@conduit/rpc-streams';

/**
 * The one mapping of "a dependency is unreachable" errors to the class of what could not be reached. The gateway's
 * problem filter and every service's RPC answer use it, so a route never special-cases an outage: an error that is
 * classified here becomes a 503 `service_unavailable` naming the class (database, redis, service), never its address.
 */

/** Seconds a client should wait before retrying a 503: services recover within 5 s of the dependency's return. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

/** Node socket errors met while opening or using a connection. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is going away or not there yet: class 08 (connection exception), 57P01-57P03
 * (admin/crash shutdown, cannot connect now), 53300 (too many connections).
 */
function isUnavailableSqlState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
}

/** Messages node-postgres (pg, pg-pool) gives a lost or refused connection, which carry no code. */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/** An error-shaped value; not `instanceof Error`, which fails for errors made in another realm (Node core under a VM). */
interface ErrorLike {
  name: string;
  message: string;
  code?: unknown;
}

function isErrorLike(value: unknown): value is ErrorLike {
  const v = value as Partial<ErrorLike> | null;
  return typeof v === 'object' && v !== null && typeof v.message === 'string' && typeof v.name === 'string';
}

/**
 * Redis replies that mean "not now" rather than "wrong command": still loading its data after a restart, a replica
 * during a failover (READONLY), out of memory under `noeviction` (OOM), refusing writes after a failed save (MISCONF),
 * a cluster that is down or resharding (CLUSTERDOWN, TRYAGAIN), a master down (MASTERDOWN).
 */
const REDIS_UNAVAILABLE_REPLIES = /^(LOADING|READONLY|OOM|MISCONF|CLUSTERDOWN|TRYAGAIN|MASTERDOWN)\b/;

/**
 * ioredis: its command timeout, a closed or unwritable connection, and the server's "not now" replies.
 * (Our RPC client's RedisUnavailableError is recognised by its class.)
 */
function isRedisUnavailable(err: ErrorLike): boolean {
  return (
    err.name === 'MaxRetriesPerRequestError' ||
    err.message === 'Command timed out' ||
    err.message === 'Connection is closed.' ||
    err.message.startsWith("Stream isn't writeable") ||
    (err.name === 'ReplyError' && REDIS_UNAVAILABLE_REPLIES.test(err.message))
  );
}

/**
 * TypeORM's answer to a query on a transaction whose connection the server has just closed: the runner was released
 * with the broken connection, so the transaction's next statement fails this way instead of with pg's error.
 */
const RELEASED_RUNNER_ERRORS = new Set(['QueryRunnerProviderAlreadyReleasedError', 'QueryRunnerAlreadyReleasedError']);

function isDatabaseUnavailable(err: ErrorLike): boolean {
  if (RELEASED_RUNNER_ERRORS.has(err.name)) return true;
  const candidate = err instanceof QueryFailedError ? (err.driverError as unknown) : err;
  if (!isErrorLike(candidate)) return false;
  const code = candidate.code;
  if (
    typeof code === 'string' &&
    (SOCKET_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && isUnavailableSqlState(code)))
  )
    return true;
  return PG_CONNECTION_MESSAGES.some((message) => candidate.message.startsWith(message));
}

/**
 * The class of the dependency whose unavailability `err` reports, or undefined for any other error. A bare socket
 * error (ECONNREFUSED...) is the database's: ioredis queues commands and rejects with its own errors instead, and
 * connectors turn their network errors into domain answers before they reach here.
 */
export function unavailableDependencyOf(err: unknown): Dependency | undefined {
  if (err instanceof AppError) return err.code === 'service_unavailable' ? (err.dependency ?? 'service') : undefined;
  if (!isErrorLike(err)) return undefined;
  if (err instanceof RpcTimeoutError) return 'service';
  if (err instanceof RedisUnavailableError || isRedisUnavailable(err)) return 'redis';
  if (isDatabaseUnavailable(err)) return 'database';
  return undefined;
}

const DETAIL: Record<Dependency, string> = {
  database: 'the database is unavailable; retry later',
  redis: 'Redis is unavailable; retry later',
  service: 'a backend service did not answer in time; retry later',
};

/** The 503 for an unavailable dependency: the same problem type for every class, with its `dependency` member. */
export function dependencyUnavailable(dependency: Dependency, detail: string = DETAIL[dependency]): AppError {
  return new AppError('service_unavailable', detail, undefined, dependency);
}

/** `err` as the 503 of its dependency when it reports an unreachable one; otherwise undefined. */
export function asDependencyUnavailable(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err.code === 'service_unavailable' && err.dependency ? err : undefined;
  const dependency = unavailableDependencyOf(err);
  return dependency ? dependencyUnavailable(dependency) : undefined;
}
