import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { GCRA_SCRIPT } from './gcra.script.js';
import { headersFor } from './rate-limit-headers.js';
import { RATE_LIMIT_KEY_PREFIX } from './rate-limit.tokens.js';

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the quota is whole again. */
  reset_s: number;
  /** Seconds to wait before the next request can pass; 0 when allowed. */
  retry_after_s: number;
}

const COMMAND = 'conduitGcraConsume';
type GcraReply = [number, number, number, number];
interface GcraCommand {
  [COMMAND](key: string, limit: number): Promise<GcraReply>;
}

/** Per-credential limit in Redis: one atomic script call (EVALSHA, loaded on demand by ioredis) per request. */
@Injectable()
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    @Inject(RATE_LIMIT_KEY_PREFIX) private readonly keyPrefix: string,
  ) {
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: GCRA_SCRIPT });
  }

  async consume(credentialId: string, limitPerMinute: number): Promise<RateLimitResult> {
    if (!Number.isInteger(limitPerMinute) || limitPerMinute < 1) {
      throw new RangeError(`limitPerMinute must be a positive integer, got ${limitPerMinute}`);
    }
    const command = this.redis as unknown as GcraCommand;
    const [allowed, remaining, resetUs, retryUs] = await command[COMMAND](this.keyPrefix + credentialId, limitPerMinute);
    return {
      allowed: allowed === 1,
      limit: limitPerMinute,
      remaining,
      reset_s: Math.ceil(resetUs / 1_000_000),
      // At least 1 s when refused: Retry-After has whole seconds and 0 would invite an immediate retry.
      retry_after_s: allowed === 1 ? 0 : Math.max(1, Math.ceil(retryUs / 1_000_000)),
    };
  }

  /** RateLimit-Policy, RateLimit and (when refused) Retry-After for a consume() result. */
  headersFor(result: RateLimitResult): Record<string, string> {
    return headersFor(result);
  }
}
