import { z } from 'zod';

/** Env settings of rate limiting, for the gateway config to spread. */
export const rateLimitEnvShape = {
  /** Requests per minute per credential when the credential has no limit of its own. Default 600. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
};
export type RateLimitConfig = z.infer<z.ZodObject<typeof rateLimitEnvShape>>;
