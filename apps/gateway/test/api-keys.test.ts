import { createHash } from 'node:crypto';
import type { Repository } from 'typeorm';
import { newId } from '@conduit/service-kit';
import { waitFor } from '@conduit/testing';
import { ApiKeysService } from '../src/api-keys/api-keys.service.js';
import { ApiKeyAuthenticator } from '../src/auth/api-key-authenticator.js';
import { ApiKeyEntity } from '../src/api-keys/api-key.entity.js';
import { DEFAULT_BOOTSTRAP_TENANT_ID } from '../src/auth/auth.config.js';
import type { Principal } from '../src/auth/principal.js';
import type { ApiKeyCache } from '../src/auth/api-key-cache.js';
import { eventualRejectionCode, rejectionCode, useApiKeyWorld } from './auth-fixtures.js';

const world = useApiKeyWorld();
let keys: ApiKeysService;
let authenticator: ApiKeyAuthenticator;
let caches: ApiKeyCache[];

beforeAll(async () => {
  // Two replicas: keys are revoked through the first and used through the second.
  caches = [await world.openCache(), await world.openCache()];
  keys = new ApiKeysService(world.db.dataSource, { BOOTSTRAP_TENANT_ID: DEFAULT_BOOTSTRAP_TENANT_ID }, caches[0]!);
  authenticator = world.authenticator(caches[1]!);
});

/** `repository` whose next findOneBy reads its row, then holds the answer until release(). */
function heldRowRead(repository: Repository<ApiKeyEntity>): {
  repository: Repository<ApiKeyEntity>;
  read: Promise<void>;
  release: () => void;
} {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let markRead!: () => void;
  const read = new Promise<void>((resolve) => (markRead = resolve));
  const holding = new Proxy(repository, {
    get(target, prop, receiver) {
      if (prop !== 'findOneBy') return Reflect.get(target, prop, receiver) as unknown;
      return async (where: Parameters<Repository<ApiKeyEntity>['findOneBy']>[0]) => {
        const row = await target.findOneBy(where);
        markRead();
        await held;
        return row;
      };
    },
  });
  return { repository: holding, read, release };
}

function rowsOf(sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  return world.db.dataSource.query(sql.replaceAll('$schema', `"${world.db.schema}"`), params);
}

describe('API keys', () => {
  it('authenticates a new key until it is revoked', async () => {
    const tenant = newId('tenant');
    const created = await keys.create(tenant, { name: 'ci', scopes: ['read', 'write'], rate_limit_per_minute: 120 });
    expect(created.key).toMatch(/^cnd_[0-9A-Za-z]{40,}$/);
    expect(created.prefix).toBe(created.key.slice(4, 12));
    expect(created.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const principal = await authenticator.authenticate(created.key);
    expect(principal).toEqual<Principal>({
      tenant_id: tenant,
      scopes: ['read', 'write'],
      credential_id: created.id,
      kind: 'api_key',
      rate_limit_per_minute: 120,
    });

    await keys.revoke(tenant, created.id);
    // The other replica cached the key: the revocation reaches it through Redis, within milliseconds.
    expect(await eventualRejectionCode(() => authenticator.authenticate(created.key))).toBe('unauthenticated');
    expect(await rejectionCode(keys.revoke(tenant, created.id))).toBe('not_found');
  });

  it('forgets a cached key on the replica that revokes it before answering', async () => {
    const tenant = newId('tenant');
    const created = await keys.create(tenant, { name: 'same-replica', scopes: ['read'] });
    const local = world.authenticator(caches[0]!);
    await local.authenticate(created.key);
    await keys.revoke(tenant, created.id);
    expect(await rejectionCode(local.authenticate(created.key))).toBe('unauthenticated');
  });

  it('never caches a key read before a revocation that landed meanwhile, on the revoking replica or another', async () => {
    const tenant = newId('tenant');
    for (const cache of caches) {
      const created = await keys.create(tenant, { name: `racing-${caches.indexOf(cache)}`, scopes: ['read'] });
      const gate = heldRowRead(world.db.dataSource.getRepository(ApiKeyEntity));
      const first = new ApiKeyAuthenticator(gate.repository, cache).authenticate(created.key);
      await gate.read;
      const before = cache.ticket();
      await keys.revoke(tenant, created.id);
      await waitFor(() => cache.ticket() > before, { what: 'the revocation to reach this replica' });
      gate.release();
      // Its read began before the revocation committed: this request passes, as it would have a moment earlier...
      await first;
      // ...but what it read is not cached: the very next request reads the revoked row.
      expect(await rejectionCode(world.authenticator(cache).authenticate(created.key))).toBe('unauthenticated');
    }
  });

  it('stores only the sha256 of the key', async () => {
    const created = await keys.create(newId('tenant'), { name: 'hashed', scopes: ['read'] });
    const [row] = await rowsOf('SELECT * FROM $schema.api_keys WHERE id = $1', [created.id]);
    expect(row?.['key_hash']).toBe(createHash('sha256').update(created.key).digest('hex'));
    const secret = created.key.slice(12);
    for (const value of Object.values(row ?? {})) expect(JSON.stringify(value) ?? '').not.toContain(secret);
  });

  it('refuses unknown and malformed keys', async () => {
    expect(await rejectionCode(authenticator.authenticate(`cnd_${'x'.repeat(43)}`))).toBe('unauthenticated');
    expect(await rejectionCode(authenticator.authenticate('short'))).toBe('unauthenticated');
    expect(await rejectionCode(authenticator.authenticate(`cnd_${'y'.repeat(30)} with spaces`))).toBe(
      'unauthenticated',
    );
  });

  it('lists live keys newest first, page by page, per tenant', async () => {
    const tenant = newId('tenant');
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await keys.create(tenant, { name: `k${i}`, scopes: ['read'] }));
    await keys.revoke(tenant, made[2]!.id);
    await keys.create(newId('tenant'), { name: 'other tenant', scopes: ['read'] });

    const first = await keys.list(tenant, { limit: 2 });
    expect(first.data.map((k) => k.name)).toEqual(['k4', 'k3']);
    expect(first.data[0]).not.toHaveProperty('key');
    expect(first.next_cursor).not.toBeNull();
    const second = await keys.list(tenant, { limit: 2, cursor: first.next_cursor! });
    expect(second.data.map((k) => k.name)).toEqual(['k1', 'k0']);
    expect(second.next_cursor).toBeNull();
    const wide = await keys.list(tenant, { limit: 3, cursor: first.next_cursor! });
    expect(wide).toMatchObject({ next_cursor: null });
    expect(wide.data.map((k) => k.name)).toEqual(['k1', 'k0']);

    expect(await rejectionCode(keys.list(tenant, { limit: 2, cursor: 'not-a-cursor' }))).toBe('invalid_parameter');
    expect((await keys.list(newId('tenant'), {})).data).toEqual([]);
  });

  it("answers not_found for malformed, unknown and other tenants' keys", async () => {
    const owner = newId('tenant');
    const created = await keys.create(owner, { name: 'mine', scopes: ['admin'] });
    expect(await rejectionCode(keys.revoke(newId('tenant'), created.id))).toBe('not_found');
    expect(await rejectionCode(keys.revoke(owner, newId('apiKey')))).toBe('not_found');
    expect(await rejectionCode(keys.revoke(owner, 'key_nope'))).toBe('not_found');
    expect(await rejectionCode(keys.get(newId('tenant'), created.id))).toBe('not_found');
    expect(await rejectionCode(keys.get(owner, newId('apiKey')))).toBe('not_found');
    expect(await rejectionCode(keys.get(owner, 'key_nope'))).toBe('not_found');
    await expect(authenticator.authenticate(created.key)).resolves.toMatchObject({ tenant_id: owner });
  });

  it('answers a live key by id (the Location of its create) without the key, and a revoked one as not_found', async () => {
    const owner = newId('tenant');
    const { key, ...shown } = await keys.create(owner, { name: 'by-id', scopes: ['read'] });
    const got = await keys.get(owner, shown.id);
    expect(got).toEqual(shown);
    expect(JSON.stringify(got)).not.toContain(key.slice(12));
    await keys.revoke(owner, shown.id);
    expect(await rejectionCode(keys.get(owner, shown.id))).toBe('not_found');
  });

  it('rejects an invalid body with every field at fault', async () => {
    const error = await keys.create(newId('tenant'), { name: '', scopes: ['root'], extra: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'validation_failed' });
    const paths = (error as { errors: { path: string }[] }).errors.map((e) => e.path).sort();
    expect(paths).toEqual(['extra', 'name', 'scopes[0]']);
  });

  it('writes last_used_at at most once a minute', async () => {
    // Without the cache, so that every call reads the row as the first call after a cache expiry does.
    const authenticator = world.authenticator(await world.openCache(0));
    const tenant = newId('tenant');
    const created = await keys.create(tenant, { name: 'used', scopes: ['read'] });
    const lastUsed = async () =>
      (await rowsOf('SELECT last_used_at FROM $schema.api_keys WHERE id = $1', [created.id]))[0]?.['last_used_at'];
    expect(await lastUsed()).toBeNull();

    await authenticator.authenticate(created.key);
    const firstUse = (await lastUsed()) as Date;
    expect(firstUse).toBeInstanceOf(Date);
    await authenticator.authenticate(created.key);
    expect(await lastUsed()).toEqual(firstUse);

    await rowsOf(`UPDATE $schema.api_keys SET last_used_at = now() - interval '61 seconds' WHERE id = $1`, [
      created.id,
    ]);
    const backdated = (await lastUsed()) as Date;
    await authenticator.authenticate(created.key);
    expect(((await lastUsed()) as Date).getTime()).toBeGreaterThan(backdated.getTime() + 60_000);
    const listed = (await keys.list(tenant, {})).data[0];
    expect(listed?.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

describe('bootstrap key and tenants', () => {
  const operatorTenant = DEFAULT_BOOTSTRAP_TENANT_ID;
  /** An admin of the operator tenant, the one that may create tenants. */
  const operator: Principal = {
    tenant_id: operatorTenant,
    scopes: ['admin'],
    credential_id: 'k',
    kind: 'api_key',
    rate_limit_per_minute: null,
  };
  const firstKey = `bootstrap-${'a'.repeat(30)}`;
  const secondKey = `cnd_${'B'.repeat(43)}`;

  it('is idempotent, even when replicas boot together', async () => {
    const outcomes = await Promise.all([1, 2, 3].map(() => keys.ensureBootstrap(firstKey, operatorTenant)));
    expect(outcomes.sort()).toEqual(['created', 'unchanged', 'unchanged']);
    expect(await keys.ensureBootstrap(firstKey, operatorTenant)).toBe('unchanged');

    const rows = await rowsOf('SELECT tenant_id, scopes, revoked_at FROM $schema.api_keys WHERE bootstrap');
    expect(rows).toEqual([{ tenant_id: operatorTenant, scopes: ['read', 'write', 'admin'], revoked_at: null }]);
    expect(await rowsOf('SELECT id FROM $schema.tenants WHERE id = $1', [operatorTenant])).toHaveLength(1);
    await expect(authenticator.authenticate(firstKey)).resolves.toMatchObject({
      tenant_id: operatorTenant,
      scopes: ['read', 'write', 'admin'],
    });
  });

  it('revokes the previous bootstrap key when the configured one changes', async () => {
    expect(await keys.ensureBootstrap(secondKey, operatorTenant)).toBe('created');
    expect(await eventualRejectionCode(() => authenticator.authenticate(firstKey))).toBe('unauthenticated');
    await expect(authenticator.authenticate(secondKey)).resolves.toMatchObject({ tenant_id: operatorTenant });
    expect(await rowsOf('SELECT id FROM $schema.api_keys WHERE bootstrap AND revoked_at IS NULL')).toHaveLength(1);
  });

  it('keeps a bootstrap key revoked through the API revoked', async () => {
    const live = (await keys.list(operatorTenant, {})).data.find((k) => k.name === 'bootstrap');
    await keys.revoke(operatorTenant, live!.id);
    expect(await keys.ensureBootstrap(secondKey, operatorTenant)).toBe('revoked');
    expect(await rejectionCode(authenticator.authenticate(secondKey))).toBe('unauthenticated');
  });

  it('lets only operators create tenants, each with a working admin key', async () => {
    const outsider: Principal = { ...operator, tenant_id: newId('tenant') };
    const reader: Principal = { ...operator, scopes: ['read', 'write'] };
    expect(await rejectionCode(keys.createTenant({ name: 'Acme' }, outsider))).toBe('forbidden');
    expect(await rejectionCode(keys.createTenant({ name: 'Acme' }, reader))).toBe('forbidden');
    expect(await rejectionCode(keys.createTenant({ name: '' }, operator))).toBe('validation_failed');

    const { tenant, api_key } = await keys.createTenant({ name: 'Acme' }, operator);
    expect(tenant.id).toMatch(/^tnt_/);
    expect(tenant.name).toBe('Acme');
    expect(api_key.scopes).toEqual(['read', 'write', 'admin']);
    await expect(authenticator.authenticate(api_key.key)).resolves.toMatchObject({
      tenant_id: tenant.id,
      credential_id: api_key.id,
    });
  });

  it('makes at most one API key and one tenant per Idempotency-Key, and refuses to show a key twice', async () => {
    const tenant = newId('tenant');
    const idem = { key: `idem-${tenant}`, fingerprint: 'c'.repeat(64) };
    // Two requests race (two credentials of the tenant): one key is made, the other request is refused, naming it.
    const outcomes = await Promise.allSettled([
      keys.create(tenant, { name: 'once', scopes: ['read'] }, idem),
      keys.create(tenant, { name: 'once', scopes: ['read'] }, idem),
    ]);
    const made = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(made).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'idempotency_key_reused' });
    expect((refused.reason as Error).message).toContain(made[0]!.id);
    expect(await rowsOf('select id from $schema.api_keys where tenant_id = $1', [tenant])).toEqual([
      { id: made[0]!.id },
    ]);

    const tenantKey = { key: `idem-tenant-${tenant}`, fingerprint: 'd'.repeat(64) };
    const first = await keys.createTenant({ name: 'Once' }, operator, tenantKey);
    expect(await rejectionCode(keys.createTenant({ name: 'Once' }, operator, tenantKey))).toBe(
      'idempotency_key_reused',
    );
    expect(await rowsOf('select id from $schema.tenants where idempotency_key = $1', [tenantKey.key])).toEqual([
      { id: first.tenant.id },
    ]);
  });
});
