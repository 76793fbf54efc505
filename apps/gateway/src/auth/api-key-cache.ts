import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { GATEWAY_CONFIG, REDIS } from '../tokens.js';
import type { Principal } from './principal.js';

interface Entry {
  principal: Principal;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

/**
 * Recently authenticated API keys, by key hash, so most requests need not read the key's row. A revocation evicts
 * the key at once on the replica that revoked it and, through a Redis channel, on every other replica; the TTL
 * (AUTH_CACHE_TTL_MS, 0 turns the cache off) bounds how long a missed message could keep a revoked key alive.
 */
@Injectable()
export class ApiKeyCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyCache.name);
  private readonly entries = new Map<string, Entry>();
  /**
   * Counts evictions (a revocation here or announced, a reconnect's clear): a key read from its row before one may
   * be revoked by it, so it is cached only if none happened since the read began ({@link ticket}).
   */
  private evictions = 0;
  private readonly ttlMs: number;
  private readonly channel: string;
  private subscriber: Redis | undefined;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(GATEWAY_CONFIG) config: { REDIS_PREFIX: string; AUTH_CACHE_TTL_MS?: number },
  ) {
    this.ttlMs = config.AUTH_CACHE_TTL_MS ?? 5000;
    this.channel = `${config.REDIS_PREFIX}gateway:api-keys:revoked`;
  }

  async onModuleInit(): Promise<void> {
    if (this.ttlMs <= 0) return;
    this.subscriber = this.redis.duplicate();
    this.subscriber.on('message', (_channel: string, keyId: string) => this.evict(keyId));
    // A reconnect may have missed revocations: start afresh rather than trust what is held.
    this.subscriber.on('ready', () => {
      this.evictions += 1;
      this.entries.clear();
    });
    this.subscriber.on('error', (err: Error) => this.logger.warn(`revocation channel: ${err.message}`));
    await this.subscriber.subscribe(this.channel);
  }

  onModuleDestroy(): void {
    this.subscriber?.disconnect();
  }

  get(keyHash: string): Principal | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry.principal;
  }

  /** Taken before a key's row is read; {@link set} caches what the read found only if no eviction came since. */
  ticket(): number {
    return this.evictions;
  }

  set(keyHash: string, principal: Principal, ticket: number): void {
    if (this.ttlMs <= 0 || ticket !== this.evictions) return;
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(keyHash, { principal, expiresAt: Date.now() + this.ttlMs });
  }

  /** Evicts a revoked key here and tells the other replicas. */
  async revoked(keyId: string): Promise<void> {
    this.evict(keyId);
    if (this.ttlMs > 0) await this.redis.publish(this.channel, keyId);
  }

  private evict(keyId: string): void {
    this.evictions += 1;
    for (const [hash, entry] of this.entries) if (entry.principal.credential_id === keyId) this.entries.delete(hash);
  }
}
