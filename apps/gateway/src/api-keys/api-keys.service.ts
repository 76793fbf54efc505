import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager, IsNull } from 'typeorm';
import {
  cursorLists,
  AppError,
  apiKeyCreateSchema,
  decodeCursor,
  isId,
  PAGE_LIMIT,
  pageOf,
  parseOrThrow,
  tenantCreateSchema,
  validationFailed,
  type ApiKey,
  type CreatedApiKey,
  type IdempotencyKey,
  type Page,
  type Scope,
  type Tenant,
  type WhoAmI,
} from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { ApiKeyEntity } from './api-key.entity.js';
import { TenantEntity } from './tenant.entity.js';
import { displayPrefixOf, generateApiKey, hashApiKey } from './api-key-secret.js';
import { toApiKey, toTenant } from './api-key.mapper.js';
import { ApiKeyCache } from '../auth/api-key-cache.js';
import { AUTH_CONFIG } from '../auth/auth.tokens.js';
import type { AuthConfig } from '../auth/auth.config.js';
import { type RateLimitConfig, wideLimits } from '../rate-limit/rate-limit.config.js';
import type { Principal } from '../auth/principal.js';
import { assertOperator } from '../auth/scopes.js';
import { createdOnce } from './created-once.js';

const ALL_SCOPES: Scope[] = ['read', 'write', 'admin'];

/** What ensureBootstrap did: a new row, nothing (already there), or nothing because that key was revoked by an admin. */
export type BootstrapOutcome = 'created' | 'unchanged' | 'revoked';

/** API keys of a tenant (admin scope), the bootstrap key, and tenant creation by operators. */
@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger(ApiKeysService.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(AUTH_CONFIG)
    private readonly config: Pick<AuthConfig, 'BOOTSTRAP_TENANT_ID'> & Partial<RateLimitConfig>,
    private readonly cache: ApiKeyCache,
  ) {}

  /** Creates a key; the answer is the only time the key itself is shown. Throws 422 validation_failed on a bad body. */
  async create(tenantId: string, body: unknown, idempotency?: IdempotencyKey): Promise<CreatedApiKey> {
    const input = parseOrThrow(apiKeyCreateSchema, body);
    // A service built without the rate-limit settings (tests of keys alone) bounds nothing.
    const most =
      this.config.RATE_LIMIT_PER_MINUTE === undefined ? undefined : wideLimits(this.config as RateLimitConfig).keyMax;
    if (most !== undefined && (input.rate_limit_per_minute ?? 0) > most) {
      throw validationFailed([
        {
          path: 'rate_limit_per_minute',
          code: 'out_of_range',
          message: `must be at most ${most}, the most a key may have here (RATE_LIMIT_MAX_PER_MINUTE)`,
        },
      ]);
    }
    const spec = { name: input.name, scopes: input.scopes, rate_limit_per_minute: input.rate_limit_per_minute ?? null };
    return createdOnce(
      idempotency,
      'API key',
      (key) => this.dataSource.manager.findOneBy(ApiKeyEntity, { tenant_id: tenantId, idempotency_key: key }),
      () => this.insertKey(this.dataSource.manager, tenantId, spec, undefined, idempotency),
    );
  }

  /** Live keys of the tenant, newest first, keyset-paged on id. Throws 400 invalid_parameter on a foreign cursor. */
  async list(tenantId: string, query: { limit?: number; cursor?: string | undefined }): Promise<Page<ApiKey>> {
    const limit = query.limit ?? PAGE_LIMIT.default;
    const qb = this.dataSource
      .getRepository(ApiKeyEntity)
      .createQueryBuilder('k')
      .where('k.tenant_id = :tenantId AND k.revoked_at IS NULL', { tenantId })
      .orderBy('k.id', 'DESC')
      .limit(limit + 1);
    if (query.cursor !== undefined) {
      const position = decodeCursor(query.cursor, cursorLists.apiKeys);
      if (!position)
        throw new AppError('invalid_parameter', 'query parameter cursor: is not a cursor from a previous page');
      qb.andWhere('k.id < :after', { after: position.after });
    }
    const rows = await qb.getMany();
    const page = pageOf(rows, limit, (row) => row.id, cursorLists.apiKeys);
    return { data: page.data.map(toApiKey), next_cursor: page.next_cursor };
  }

  /** A live key of the tenant; another tenant's, a revoked or an unknown one is a 404. */
  async get(tenantId: string, id: string): Promise<ApiKey> {
    if (!isId('apiKey', id)) throw notFound();
    const row = await this.dataSource
      .getRepository(ApiKeyEntity)
      .findOneBy({ id, tenant_id: tenantId, revoked_at: IsNull() });
    if (!row) throw notFound();
    return toApiKey(row);
  }

  /** Revokes a live key of the tenant; effective for the very next request (authentication reads the row). */
  async revoke(tenantId: string, id: string): Promise<void> {
    if (!isId('apiKey', id)) throw notFound();
    const result = await this.dataSource
      .getRepository(ApiKeyEntity)
      .update({ id, tenant_id: tenantId, revoked_at: IsNull() }, { revoked_at: new Date() });
    if (!result.affected) throw notFound();
    await this.cache.revoked(id);
  }

  /**
   * Makes BOOTSTRAP_API_KEY an admin key of `tenantId` (creating the tenant), idempotently; run at boot.
   * A different earlier bootstrap key is revoked. A bootstrap key an admin revoked stays revoked.
   */
  /** The caller's tenant (its name when the tenant was created, not for one only bearer tokens name) and credential. */
  async whoAmI(principal: Principal): Promise<WhoAmI> {
    const tenant = await this.dataSource.manager.findOneBy(TenantEntity, { id: principal.tenant_id });
    return {
      tenant: { id: principal.tenant_id, name: tenant?.name ?? null },
      credential: { kind: principal.kind, id: principal.credential_id, scopes: [...principal.scopes] },
    };
  }

  async ensureBootstrap(key: string, tenantId: string): Promise<BootstrapOutcome> {
    const keyHash = hashApiKey(key);
    const revokedIds: string[] = [];
    const outcome = await this.dataSource.transaction(async (manager) => {
      // Replicas booting together must not both insert (unique violation) or revoke each other's key.
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schemaName(this.dataSource)}.bootstrap`]);
      await manager
        .createQueryBuilder()
        .insert()
        .into(TenantEntity)
        .values({ id: tenantId, name: 'Operators', created_at: new Date() })
        .orIgnore()
        .execute();
      const replaced = await manager
        .createQueryBuilder()
        .update(ApiKeyEntity)
        .set({ revoked_at: new Date() })
        .where('bootstrap AND revoked_at IS NULL AND key_hash <> :keyHash', { keyHash })
        .returning(['id'])
        .execute();
      revokedIds.push(...(replaced.raw as { id: string }[]).map((r) => r.id));
      const existing = await manager.getRepository(ApiKeyEntity).findOneBy({ key_hash: keyHash });
      if (existing) return existing.revoked_at ? 'revoked' : 'unchanged';
      await this.insertKey(
        manager,
        tenantId,
        { name: 'bootstrap', scopes: ALL_SCOPES, rate_limit_per_minute: null },
        key,
      );
      return 'created';
    });
    for (const id of revokedIds) await this.cache.revoked(id);
    if (outcome === 'revoked') {
      this.logger.warn('BOOTSTRAP_API_KEY was revoked through the API and stays revoked; set a new one to use it');
    }
    return outcome;
  }

  /** Operators only (admins of the bootstrap tenant): a new tenant with a first admin key. */
  async createTenant(
    body: unknown,
    caller: Principal,
    idempotency?: IdempotencyKey,
  ): Promise<{ tenant: Tenant; api_key: CreatedApiKey }> {
    assertOperator(caller, this.config.BOOTSTRAP_TENANT_ID);
    const input = parseOrThrow(tenantCreateSchema, body);
    return createdOnce(
      idempotency,
      'tenant',
      (key) => this.dataSource.manager.findOneBy(TenantEntity, { idempotency_key: key }),
      () =>
        this.dataSource.transaction(async (manager) => {
          const tenant = manager.getRepository(TenantEntity).create({
            id: newId('tenant'),
            name: input.name,
            created_at: new Date(),
            idempotency_key: idempotency?.key ?? null,
            idempotency_fingerprint: idempotency?.fingerprint ?? null,
          });
          await manager.getRepository(TenantEntity).insert(tenant);
          const apiKey = await this.insertKey(manager, tenant.id, {
            name: 'admin',
            scopes: ALL_SCOPES,
            rate_limit_per_minute: null,
          });
          return { tenant: toTenant(tenant), api_key: apiKey };
        }),
    );
  }

  /**
   * A tenant (the create's `Location`): any tenant for an operator, its own for any other admin; every other id reads
   * as one that does not exist.
   */
  async getTenant(id: string, caller: Principal): Promise<Tenant> {
    const operator = caller.tenant_id === this.config.BOOTSTRAP_TENANT_ID;
    const row =
      isId('tenant', id) && (operator || id === caller.tenant_id)
        ? await this.dataSource.manager.findOneBy(TenantEntity, { id })
        : null;
    if (!row) throw new AppError('not_found', 'no tenant with that id');
    return toTenant(row);
  }

  private async insertKey(
    manager: EntityManager,
    tenantId: string,
    spec: { name: string; scopes: Scope[]; rate_limit_per_minute: number | null },
    givenKey?: string,
    idempotency?: IdempotencyKey,
  ): Promise<CreatedApiKey> {
    const key = givenKey ?? generateApiKey();
    const repo = manager.getRepository(ApiKeyEntity);
    const row = repo.create({
      id: newId('apiKey'),
      tenant_id: tenantId,
      name: spec.name,
      key_hash: hashApiKey(key),
      prefix: displayPrefixOf(key),
      scopes: spec.scopes,
      rate_limit_per_minute: spec.rate_limit_per_minute,
      bootstrap: givenKey !== undefined,
      created_at: new Date(),
      last_used_at: null,
      revoked_at: null,
      idempotency_key: idempotency?.key ?? null,
      idempotency_fingerprint: idempotency?.fingerprint ?? null,
    });
    await repo.insert(row);
    return { ...toApiKey(row), key };
  }
}

function notFound(): AppError {
  return new AppError('not_found', 'no such API key');
}

function schemaName(dataSource: DataSource): string {
  return (dataSource.options as { schema?: string }).schema ?? 'public';
}
