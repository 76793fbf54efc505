import { Injectable } from '@nestjs/common';
import { AppError } from '@conduit/contracts';
import { ApiKeyAuthenticator } from './api-key-authenticator.js';
import { JwtVerifier } from './jwt-verifier.js';
import type { Principal } from './principal.js';

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
      return this.jwt.verify(token);
    }
    throw new AppError('unauthenticated', 'no credential: send X-API-Key or Authorization: Bearer <token>');
  }
}
