import { z } from 'zod';

/** Env settings of rate limiting, for the gateway config to spread. */
export const rateLimitEnvShape = {
  /** Requests per minute per credential when the credential has no limit of its own. Default 600. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  /**
   * The most a key's own limit may be (`rate_limit_per_minute` at creation): a tenant's admin sets it, the operator
   * bounds it. Default ten times RATE_LIMIT_PER_MINUTE (6000). A key made with more before it was lowered counts at
   * this.
   */
  RATE_LIMIT_MAX_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).optional(),
  /**
   * Requests per minute of one tenant's credentials together, whatever each one's own limit: more keys do not buy
   * more of the platform. Default ten times RATE_LIMIT_PER_MINUTE (6000).
   */
  RATE_LIMIT_TENANT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).optional(),
};
export type RateLimitConfig = z.infer<z.ZodObject<typeof rateLimitEnvShape>>;

/** The limits beyond one credential's, their defaults following RATE_LIMIT_PER_MINUTE. */
export function wideLimits(config: RateLimitConfig): { keyMax: number; tenant: number } {
  const tenfold = Math.min(10 * config.RATE_LIMIT_PER_MINUTE, 1_000_000);
  return {
    keyMax: config.RATE_LIMIT_MAX_PER_MINUTE ?? tenfold,
    tenant: config.RATE_LIMIT_TENANT_PER_MINUTE ?? tenfold,
  };
}
