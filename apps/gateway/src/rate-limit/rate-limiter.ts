import { Inject, Injectable, Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { unavailableDependencyOf } from '@conduit/service-kit';
import { GCRA_SCRIPT } from './gcra.script.js';
import { headersFor } from './rate-limit-headers.js';
import type { RateLimitResult } from './rate-limit-result.js';
import { RATE_LIMIT_KEY_PREFIX } from './rate-limit.tokens.js';

const COMMAND = 'conduitGcraTake';
type GcraReply = [granted: number, remaining: number, resetUs: number, retryUs: number];
interface GcraCommand {
  [COMMAND](key: string, limit: number, wanted: number): Promise<GcraReply>;
}

/** Requests a minute from which a replica takes its quota in leases rather than one request at a time. */
const LEASING_FROM = 2000;
/** A lease is at most this share of the limit: what a replica can hold back from the others. */
const LEASE_SHARE = 1 / 1000;
/** Leased requests not used within this long are given up (they stay spent, never handed out late). */
const LEASE_TTL_MS = 1000;

/** Requests taken from the shared bucket and not yet handed out, on this replica. */
interface Lease {
  limit: number;
  left: number;
  expiresAt: number;
  /** The bucket's remaining and reset when the lease was taken. */
  remaining: number;
  resetUs: number;
}

/** Requests a replica takes from the bucket at once for this limit: 1 (every request asks Redis) below LEASING_FROM. */
export function leaseSize(limitPerMinute: number): number {
  return limitPerMinute < LEASING_FROM ? 1 : Math.floor(limitPerMinute * LEASE_SHARE);
}

/**
 * Per-credential limit in Redis, one atomic script call (EVALSHA, loaded on demand by ioredis) per decision.
 * Under LEASING_FROM requests a minute every request is one call, exact to the request. From there on a replica
 * takes a lease of limit/1000 requests in one call and hands them out locally: a busy credential costs one Redis
 * round trip per lease instead of per request. A lease is taken from the bucket before any of it is used, so the
 * limit is never exceeded; a replica may hold back at most its lease for LEASE_TTL_MS.
 */
@Injectable()
export class RateLimiter {
  private readonly leases = new Map<string, Lease>();
  /** Lease calls under way, which the concurrent requests of the same credential wait for instead of each calling. */
  private readonly renewals = new Map<string, Promise<unknown>>();
  private readonly logger = new Logger(RateLimiter.name);
  /** Failing open: one log line when it starts and one when Redis counts again, not one per request. */
  private failingOpen = false;

  constructor(
    private readonly redis: Redis,
    @Inject(RATE_LIMIT_KEY_PREFIX) private readonly keyPrefix: string,
  ) {
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: GCRA_SCRIPT });
  }

  /**
   * Fails open: while Redis is unavailable (reconnecting, or past the client's command timeout) the request passes
   * uncounted, with a log line. A limit protects capacity; refusing every request for its own outage would not.
   */
  async consume(credentialId: string, limitPerMinute: number): Promise<RateLimitResult> {
    if (!Number.isInteger(limitPerMinute) || limitPerMinute < 1) {
      throw new RangeError(`limitPerMinute must be a positive integer, got ${limitPerMinute}`);
    }
    // Known down: do not spend the command timeout finding out again on every request.
    if (this.redis.status !== 'ready') return this.unmetered(limitPerMinute, `Redis is ${this.redis.status}`);
    try {
      const result = await this.meter(credentialId, limitPerMinute);
      if (this.failingOpen) {
        this.failingOpen = false;
        this.logger.log('Redis answers again: rate limits are counted again');
      }
      return result;
    } catch (err) {
      if (unavailableDependencyOf(err) !== 'redis') throw err;
      return this.unmetered(limitPerMinute, (err as Error).message);
    }
  }

  private unmetered(limit: number, reason: string): RateLimitResult {
    if (!this.failingOpen) {
      this.failingOpen = true;
      this.logger.warn(`rate limits are not counted while Redis is unavailable (${reason})`);
    }
    return { allowed: true, limit, remaining: limit, reset_s: 0, retry_after_s: 0, unmetered: true };
  }

  private async meter(credentialId: string, limitPerMinute: number): Promise<RateLimitResult> {
    const size = leaseSize(limitPerMinute);
    if (size === 1) return this.take(credentialId, limitPerMinute, 1);
    for (;;) {
      const leased = this.fromLease(credentialId, limitPerMinute);
      if (leased) return leased;
      const renewal = this.renewals.get(credentialId);
      if (!renewal) break;
      await renewal.catch(() => undefined);
    }
    const renewal = this.take(credentialId, limitPerMinute, size).finally(() => this.renewals.delete(credentialId));
    this.renewals.set(credentialId, renewal);
    return renewal;
  }

  /** RateLimit-Policy, RateLimit and (when refused) Retry-After for a consume() result. */
  headersFor(result: RateLimitResult): Record<string, string> {
    return headersFor(result);
  }

  /** One script call for up to `wanted` requests; the first is this caller's, the rest become the lease. */
  private async take(credentialId: string, limit: number, wanted: number): Promise<RateLimitResult> {
    const command = this.redis as unknown as GcraCommand;
    const [granted, remaining, resetUs, retryUs] = await command[COMMAND](this.keyPrefix + credentialId, limit, wanted);
    if (granted === 0) {
      this.leases.delete(credentialId);
      // At least 1 s: Retry-After has whole seconds and 0 would invite an immediate retry.
      return {
        allowed: false,
        limit,
        remaining: 0,
        reset_s: secondsOf(resetUs),
        retry_after_s: Math.max(1, secondsOf(retryUs)),
      };
    }
    if (wanted > 1) {
      this.leases.set(credentialId, {
        limit,
        left: granted - 1,
        expiresAt: Date.now() + LEASE_TTL_MS,
        remaining,
        resetUs,
      });
    }
    return { allowed: true, limit, remaining: remaining + granted - 1, reset_s: secondsOf(resetUs), retry_after_s: 0 };
  }

  private fromLease(credentialId: string, limit: number): RateLimitResult | undefined {
    const lease = this.leases.get(credentialId);
    if (!lease) return undefined;
    if (lease.left === 0 || lease.limit !== limit || Date.now() >= lease.expiresAt) {
      this.leases.delete(credentialId);
      return undefined;
    }
    lease.left -= 1;
    return {
      allowed: true,
      limit,
      remaining: lease.remaining + lease.left,
      reset_s: secondsOf(lease.resetUs),
      retry_after_s: 0,
    };
  }
}

function secondsOf(us: number): number {
  return Math.ceil(us / 1_000_000);
}
