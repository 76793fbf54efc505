import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AppError } from '@conduit/contracts';
import { ApiKeyEntity } from '../api-keys/api-key.entity.js';
import { hashApiKey, isPlausibleApiKey } from '../api-keys/api-key-secret.js';
import type { Principal } from './principal.js';
import { ApiKeyCache } from './api-key-cache.js';

/** last_used_at is informative: writing it once a minute per key keeps authentication read-only. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves an X-API-Key: from the cache of recently seen keys (revocations evict it everywhere at once), else by
 * reading the row by its unique hash.
 */
@Injectable()
export class ApiKeyAuthenticator {
  private readonly logger = new Logger(ApiKeyAuthenticator.name);

  constructor(
    @InjectRepository(ApiKeyEntity) private readonly apiKeys: Repository<ApiKeyEntity>,
    private readonly cache: ApiKeyCache,
  ) {}

  async authenticate(key: string): Promise<Principal> {
    if (!isPlausibleApiKey(key)) throw new AppError('unauthenticated', 'malformed API key');
    const keyHash = hashApiKey(key);
    const cached = this.cache.get(keyHash);
    if (cached) return cached;
    // A revocation committed while the row is read (here, or announced by another replica) must not be undone by
    // caching what the read found: the cache refuses it if any eviction came since this ticket.
    const ticket = this.cache.ticket();
    const row = await this.apiKeys.findOneBy({ key_hash: keyHash });
    // Unknown and revoked read alike, so a caller learns nothing about which keys once existed.
    if (!row || row.revoked_at) throw new AppError('unauthenticated', 'unknown or revoked API key');
    await this.recordUse(row);
    const principal: Principal = {
      tenant_id: row.tenant_id,
      scopes: [...row.scopes],
      credential_id: row.id,
      kind: 'api_key',
      rate_limit_per_minute: row.rate_limit_per_minute,
    };
    this.cache.set(keyHash, principal, ticket);
    return principal;
  }

  private async recordUse(row: ApiKeyEntity): Promise<void> {
    const now = Date.now();
    if (row.last_used_at && now - row.last_used_at.getTime() < LAST_USED_RESOLUTION_MS) return;
    try {
      // The condition repeats the check in SQL so concurrent requests on several replicas write once.
      await this.apiKeys
        .createQueryBuilder()
        .update()
        .set({ last_used_at: new Date(now) })
        .where('id = :id AND (last_used_at IS NULL OR last_used_at < :before)', {
          id: row.id,
          before: new Date(now - LAST_USED_RESOLUTION_MS),
        })
        .execute();
    } catch (error) {
      // A failed bookkeeping write must not refuse a valid key.
      this.logger.warn(`could not record the use of API key ${row.id}: ${(error as Error).message}`);
    }
  }
}
