import { Injectable } from '@nestjs/common';
import { AppError } from '@conduit/contracts';
import { ApiKeyAuthenticator } from './api-key-authenticator.js';
import { JwtVerifier } from './jwt-verifier.js';
import type { Principal } from './principal.js';
import { wwwAuthenticate } from './www-authenticate.js';
import { HeaderedError } from '../http/problem.js';

/** The credential headers of a request: `X-API-Key` and `Authorization`, as received. */
export interface CredentialHeaders {
  apiKey?: string | undefined;
  authorization?: string | undefined;
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-_.~+/]+=*)[ ]*$/i;

/** Turns the credential of a request into a Principal, or throws AppError('unauthenticated'). */
@Injectable()
export class AuthService {
  constructor(
    private readonly apiKeys: ApiKeyAuthenticator,
    private readonly jwt: JwtVerifier,
  ) {}

  async authenticate(h: CredentialHeaders): Promise<Principal> {
    const { apiKey, authorization } = h;
    if (apiKey !== undefined && authorization !== undefined) {
      // Two credentials could name two tenants; refusing is clearer than a precedence rule.
      throw new AppError('unauthenticated', 'send one credential: X-API-Key or Authorization, not both');
    }
    if (apiKey !== undefined) return this.apiKeys.authenticate(apiKey.trim());
    if (authorization !== undefined) {
      const token = BEARER.exec(authorization)?.[1];
      if (token === undefined) throw new AppError('unauthenticated', 'Authorization must be "Bearer <token>"');
      return this.verifyBearer(token);
    }
    throw new AppError('unauthenticated', 'no credential: send X-API-Key or Authorization: Bearer <token>');
  }

  /** A refused token's 401 says error="invalid_token" (www-authenticate.ts); an outage (a 503) passes as it is. */
  private async verifyBearer(token: string): Promise<Principal> {
    try {
      return await this.jwt.verify(token);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'unauthenticated') throw error;
      // The one detail that repeats the token's own text (its `alg`) is not repeated in a header.
      const refusal = error.message.startsWith('tokens signed with')
        ? 'token algorithm is not accepted'
        : error.message;
      throw new HeaderedError(error.toDomainError(), { 'www-authenticate': wwwAuthenticate(refusal) });
    }
  }
}
