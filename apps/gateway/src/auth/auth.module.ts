import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Redis } from 'ioredis';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import { ApiKeyEntity } from '../api-keys/api-key.entity.js';
import { RateLimiter } from '../rate-limit/rate-limiter.js';
import { RATE_LIMIT_KEY_PREFIX } from '../rate-limit/rate-limit.tokens.js';
import { GATEWAY_CONFIG, REDIS } from '../tokens.js';
import { ApiKeyAuthenticator } from './api-key-authenticator.js';
import { AuthService } from './auth.service.js';
import { ApiKeyCache } from './api-key-cache.js';
import { JwtVerifier } from './jwt-verifier.js';

const services = [AuthService, ApiKeyAuthenticator, ApiKeyCache, JwtVerifier, ApiKeysService, RateLimiter];

/**
 * Authentication, API keys and rate limiting. Needs these providers from a global module (AppModule):
 * AUTH_CONFIG (AuthConfig), GATEWAY_CONFIG (for REDIS_PREFIX), the DataSource class (gateway schema) and REDIS.
 */
@Module({
  // The authenticator only reads and touches key rows: a repository of its own, from the same DataSource.
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  providers: [
    ...services,
    { provide: Redis, useExisting: REDIS },
    {
      provide: RATE_LIMIT_KEY_PREFIX,
      inject: [GATEWAY_CONFIG],
      useFactory: (config: { REDIS_PREFIX: string }) => `${config.REDIS_PREFIX}gateway:ratelimit:`,
    },
  ],
  exports: services,
})
export class AuthModule {}
