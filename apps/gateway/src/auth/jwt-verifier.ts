import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { AppError, SCOPES, type Scope } from '@conduit/contracts';
import { AUTH_CONFIG } from './auth.tokens.js';
import type { AuthConfig } from './auth.config.js';
import type { Principal } from './principal.js';

const HMAC_ALGS = ['HS256', 'HS384', 'HS512'];
const ASYMMETRIC_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
const TENANT_ID = /^[A-Za-z0-9_.:-]{1,64}$/;
const MAX_SUBJECT_LENGTH = 255;

/**
 * A bearer token's credential id (its idempotency records' and rate bucket's owner): `jwt:<tenant>:<sub>`, each part
 * percent-encoded, since a tenant claim may hold `:` and tenant `a` with subject `b:c` must not be tenant `a:b` with
 * subject `c`. A token without a subject is a credential of its own, `jwt:<tenant>:#<its hash>`: tokens of one
 * tenant that name no holder must not share one, or one user's retried Create API Key would replay another's new key.
 */
export function jwtCredentialId(tenant: string, subject: string | undefined, token: string): string {
  const holder =
    subject === undefined
      ? `#${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`
      : encodeURIComponent(subject);
  return `jwt:${encodeURIComponent(tenant)}:${holder}`;
}

export type JwtConfig = Pick<
  AuthConfig,
  | 'JWT_SECRET'
  | 'JWT_JWKS_URL'
  | 'JWT_ISSUER'
  | 'JWT_AUDIENCE'
  | 'JWT_TENANT_CLAIM'
  | 'JWT_SCOPES_CLAIM'
  | 'JWT_CLOCK_TOLERANCE_S'
>;

/** Verifies Bearer JWTs: HS* against JWT_SECRET, anything asymmetric against the JWKS (fetched and cached by jose). */
@Injectable()
export class JwtVerifier {
  private readonly secret: Uint8Array | undefined;
  private readonly jwks: JWTVerifyGetKey | undefined;

  constructor(@Inject(AUTH_CONFIG) private readonly config: JwtConfig) {
    this.secret = config.JWT_SECRET === undefined ? undefined : new TextEncoder().encode(config.JWT_SECRET);
    this.jwks = config.JWT_JWKS_URL === undefined ? undefined : createRemoteJWKSet(new URL(config.JWT_JWKS_URL));
  }

  async verify(token: string): Promise<Principal> {
    const { issuer, audience } = this.configured();
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw unauthenticated('malformed bearer token');
    }
    const hmac = alg !== undefined && HMAC_ALGS.includes(alg);
    const key = hmac ? this.secret : this.jwks;
    if (!key) throw unauthenticated(`tokens signed with ${alg ?? 'no algorithm'} are not accepted`);
    const options = {
      issuer,
      audience,
      algorithms: hmac ? HMAC_ALGS : ASYMMETRIC_ALGS,
      clockTolerance: this.config.JWT_CLOCK_TOLERANCE_S,
      requiredClaims: ['exp'],
    };
    let payload: JWTPayload;
    try {
      payload = (
        key instanceof Uint8Array ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options)
      ).payload;
    } catch (error) {
      throw toAppError(error);
    }
    return this.principalOf(payload, token);
  }

  private configured(): { issuer: string; audience: string } {
    const { JWT_ISSUER: issuer, JWT_AUDIENCE: audience } = this.config;
    if ((!this.secret && !this.jwks) || issuer === undefined || audience === undefined) {
      throw unauthenticated('bearer tokens are not accepted by this installation');
    }
    return { issuer, audience };
  }

  private principalOf(payload: JWTPayload, token: string): Principal {
    const tenant = payload[this.config.JWT_TENANT_CLAIM];
    if (typeof tenant !== 'string' || !TENANT_ID.test(tenant)) {
      throw unauthenticated(`token lacks a valid '${this.config.JWT_TENANT_CLAIM}' claim`);
    }
    const subject = payload.sub;
    if (
      subject !== undefined &&
      (typeof subject !== 'string' || subject === '' || subject.length > MAX_SUBJECT_LENGTH)
    ) {
      throw unauthenticated(`token claim 'sub' is invalid: 1-${MAX_SUBJECT_LENGTH} characters`);
    }
    return {
      tenant_id: tenant,
      scopes: scopesOf(payload[this.config.JWT_SCOPES_CLAIM]),
      credential_id: jwtCredentialId(tenant, subject, token),
      kind: 'jwt',
      rate_limit_per_minute: null,
    };
  }
}

/** A space-separated string (RFC 8693 `scope`) or an array; anything but read/write/admin is ignored. */
export function scopesOf(claim: unknown): Scope[] {
  const words = typeof claim === 'string' ? claim.split(/\s+/) : Array.isArray(claim) ? claim : [];
  const known = new Set<Scope>();
  for (const word of words) {
    if ((SCOPES as readonly unknown[]).includes(word)) known.add(word as Scope);
  }
  return SCOPES.filter((s) => known.has(s));
}

function unauthenticated(detail: string): AppError {
  return new AppError('unauthenticated', detail);
}

function toAppError(error: unknown): AppError {
  if (error instanceof errors.JWTExpired) return unauthenticated('token expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    return unauthenticated(`token claim '${error.claim}' is invalid: ${error.reason}`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return unauthenticated('token signature is invalid');
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return unauthenticated('token is not signed by a known key');
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return unauthenticated('token algorithm is not accepted');
  if (
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSENotSupported
  ) {
    return unauthenticated('malformed bearer token');
  }
  // Anything else (JWKS unreachable, not 200, not JSON, holding a bad key) is our side failing, not the caller.
  return new AppError('service_unavailable', 'the token key set could not be fetched');
}
