import type { ApiKey, Tenant } from '@conduit/contracts';
import type { ApiKeyEntity } from './api-key.entity.js';
import type { TenantEntity } from './tenant.entity.js';

export function toApiKey(row: ApiKeyEntity): ApiKey {
  return {
    id: row.id,
    name: row.name,
    scopes: [...row.scopes],
    prefix: row.prefix,
    rate_limit_per_minute: row.rate_limit_per_minute,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at ? row.last_used_at.toISOString() : null,
  };
}

export function toTenant(row: TenantEntity): Tenant {
  return { id: row.id, name: row.name, created_at: row.created_at.toISOString() };
}
