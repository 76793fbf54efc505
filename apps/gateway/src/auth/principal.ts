import type { Scope } from '@conduit/contracts';

/** Who is calling, as established by AuthService from an API key or a JWT. */
export interface Principal {
  tenant_id: string;
  /** The scopes granted to the credential, as granted (implications are applied by hasScope/assertScope). */
  scopes: Scope[];
  /** Stable id of the credential, the rate-limit bucket: the key id (`key_...`) or `jwt:<tenant>:<sub>` (jwt-verifier.ts jwtCredentialId). */
  credential_id: string;
  kind: 'api_key' | 'jwt';
  /** The credential's own limit; null means the gateway default (RATE_LIMIT_PER_MINUTE). */
  rate_limit_per_minute: number | null;
}
