import { z } from 'zod';
import { baseEnv, envPort, loadConfig } from '@conduit/service-kit';
import { authEnvShape, checkAuthEnv } from './auth/auth.config.js';
import { rateLimitEnvShape } from './rate-limit/rate-limit.config.js';
import { secretsEnv } from '@conduit/secrets';

const positiveInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Next to the other services' ops ports (3101-3105), so one scrape rule and one network policy cover them all. */
export const DEFAULT_GATEWAY_METRICS_PORT = 3100;

export const gatewayEnvSchema = z
  .object({
    ...baseEnv,
    ...authEnvShape,
    /** The public HTTP port. */
    GATEWAY_PORT: envPort().default(3000),
    GATEWAY_HOST: z.string().min(1).default('0.0.0.0'),
    /** /metrics (and /healthz, /readyz) for Prometheus, on GATEWAY_HOST: never on the public port. */
    GATEWAY_METRICS_PORT: envPort().default(DEFAULT_GATEWAY_METRICS_PORT),
    /** The built web console served at `/`; default apps/console/dist beside this app (as in the image). */
    CONSOLE_DIR: z.string().min(1).optional(),
    /**
     * How long a client may take to send a whole request, head and body, before it is answered 408 and its connection
     * closed: a client dripping a body (slowloris) cannot hold a connection. Answers are not bounded by it (a live
     * log stream lasts as long as its run).
     */
    REQUEST_RECEIVE_TIMEOUT_MS: positiveInt(1000, 600_000).default(30_000),
    /** How long the gateway waits for a backend service before answering 503. */
    RPC_TIMEOUT_MS: positiveInt(100, 60_000).default(5000),
    ...rateLimitEnvShape,
    /**
     * Bound on every Redis command of the gateway (rate limit, idempotency, API-key revocations, RPC sends): a hung
     * Redis answers 503 (or, for the rate limit, passes uncounted) after this long instead of holding the request.
     */
    REDIS_COMMAND_TIMEOUT_MS: positiveInt(50, 60_000).default(1000),
    /** How long an authenticated API key is remembered (revocations evict it at once); 0 reads every time. */
    AUTH_CACHE_TTL_MS: positiveInt(0, 60_000).default(5000),
    /** How often a live log stream checks its credential again (revoked key, expired token) and ends if it fails. */
    STREAM_AUTH_RECHECK_MS: positiveInt(100, 60_000).default(5000),
    /**
     * Live log streams one tenant may hold open at once on this gateway (each polls monitoring while its run lasts);
     * one more is a 429 rate_limited. Per gateway replica.
     */
    LOG_STREAMS_PER_TENANT: positiveInt(1, 100_000).default(20),
    /** How long an Idempotency-Key replays its first answer. */
    IDEMPOTENCY_TTL_S: positiveInt(60, 7 * 24 * 3600).default(24 * 3600),
    /**
     * After a request with an Idempotency-Key answered 503 (its work may still commit late), how long a retry with
     * that key answers 409 idempotency_in_progress before it is let through to find what the first one made.
     */
    IDEMPOTENCY_HOLD_AFTER_503_MS: positiveInt(100, 60_000).default(5000),
    /**
     * SECRETS_KEY, AES-256-GCM key (64 hex characters or base64 of 32 bytes): secrets cross to the services sealed
     * with it. SECRETS_KEYS_PREVIOUS: keys being rotated out (comma-separated), still opening stored idempotent answers.
     */
    ...secretsEnv(),
  })
  .superRefine(checkAuthEnv)
  .superRefine((env, ctx) => {
    // One port for both would put /metrics back on the public API.
    if (env.GATEWAY_METRICS_PORT !== 0 && env.GATEWAY_METRICS_PORT === env.GATEWAY_PORT) {
      ctx.addIssue({ code: 'custom', path: ['GATEWAY_METRICS_PORT'], message: 'must differ from GATEWAY_PORT' });
    }
  });

export type GatewayConfig = z.output<typeof gatewayEnvSchema>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(gatewayEnvSchema, env);
}
