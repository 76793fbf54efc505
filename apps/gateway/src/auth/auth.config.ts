import { z } from 'zod';
import { isId } from '@conduit/contracts';

/** A valid-looking fixed tenant id, so a fresh install has a well-known first tenant. */
export const DEFAULT_BOOTSTRAP_TENANT_ID = `tnt_${'0'.repeat(26)}`;

/** Env settings of authentication; the gateway config spreads this shape and applies `checkAuthEnv`. */
export const authEnvShape = {
  /** Admin key for the bootstrap tenant, created/kept at start-up. Unset: no bootstrap key. */
  BOOTSTRAP_API_KEY: z
    .string()
    .min(24)
    .max(256)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional(),
  /** Tenant of the bootstrap key; its admins are the operators (they may create tenants). */
  BOOTSTRAP_TENANT_ID: z
    .string()
    .refine((v) => isId('tenant', v), 'must be a tenant id like tnt_<26 ULID characters>')
    .default(DEFAULT_BOOTSTRAP_TENANT_ID),
  /** Shared secret for HS256/384/512 tokens (RFC 7518 wants at least 256 bits). */
  JWT_SECRET: z.string().min(32).optional(),
  /** JWKS document for asymmetric tokens (RS*, PS*, ES*, EdDSA). */
  JWT_JWKS_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Required as soon as JWT_SECRET or JWT_JWKS_URL is set. */
  JWT_ISSUER: z.string().min(1).optional(),
  /** Required as soon as JWT_SECRET or JWT_JWKS_URL is set. */
  JWT_AUDIENCE: z.string().min(1).optional(),
  /** Claim holding the tenant id. Default `tenant_id`. */
  JWT_TENANT_CLAIM: z.string().min(1).default('tenant_id'),
  /** Claim holding the scopes: a space-separated string or an array. Default `scope`. */
  JWT_SCOPES_CLAIM: z.string().min(1).default('scope'),
  /** Leeway for exp/nbf/iat, in seconds. Default 5. */
  JWT_CLOCK_TOLERANCE_S: z.coerce.number().int().min(0).max(300).default(5),
};

type AuthEnvInput = {
  JWT_SECRET?: string | undefined;
  JWT_JWKS_URL?: string | undefined;
  JWT_ISSUER?: string | undefined;
  JWT_AUDIENCE?: string | undefined;
};

/** Cross-field rule, for `.superRefine` on the merged gateway schema: a JWT key source needs issuer and audience. */
export function checkAuthEnv(env: AuthEnvInput, ctx: z.RefinementCtx): void {
  if (env.JWT_SECRET === undefined && env.JWT_JWKS_URL === undefined) return;
  for (const key of ['JWT_ISSUER', 'JWT_AUDIENCE'] as const) {
    if (env[key] === undefined) {
      ctx.addIssue({ code: 'custom', path: [key], message: 'required when JWT_SECRET or JWT_JWKS_URL is set' });
    }
  }
}

export const authConfigSchema = z.object(authEnvShape).superRefine(checkAuthEnv);
export type AuthConfig = z.infer<typeof authConfigSchema>;
