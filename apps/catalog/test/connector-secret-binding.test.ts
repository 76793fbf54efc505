/**
 * Stored connector secrets are bound to their tenant, connector and field, and name the key that sealed them: a
 * ciphertext copied into another row does not open there (Test Connection fails cleanly, an update asks for it
 * again), values of the earlier format are re-sealed, and SECRETS_KEY rotates without a secret that stops opening.
 */
import { describe, expect, it } from '@jest/globals';
import { createCipheriv, randomBytes } from 'node:crypto';
import { SECRET_MASK } from '@conduit/connectors';
import { keyIdOf, type SecretKeys } from '@conduit/secrets';
import { ConnectorSecrets } from '../src/connectors/connector-secrets.js';
import { ConnectorsService } from '../src/connectors/connectors.service.js';
import { resealConnectorSecrets } from '../src/connectors/connector-reseal.js';
import { useFreshCatalog, inTransit, localPostgresConfig, newTenant, rejection } from './support/catalog-db.js';

const cat = useFreshCatalog();

async function rawConfig(id: string): Promise<Record<string, unknown>> {
  const rows: { config: Record<string, unknown> }[] = await cat.ds.query(
    `SELECT config FROM "${cat.schema}".connectors WHERE id = $1`,
    [id],
  );
  if (!rows[0]) throw new Error(`connector ${id} is not stored`);
  return rows[0].config;
}

async function setStoredPassword(id: string, sealed: string): Promise<void> {
  await cat.ds.query(
    `UPDATE "${cat.schema}".connectors SET config = jsonb_set(config, '{password}', to_jsonb($1::text)) WHERE id = $2`,
    [sealed, id],
  );
}

/** A connector to the local PostgreSQL (trust auth: any password connects), made by `service`. */
async function localConnector(
  service: ConnectorsService,
  key: Buffer,
  tenantId: string,
  password: string,
): Promise<string> {
  const name = `pg-${randomBytes(4).toString('hex')}`;
  return (
    await service.create(tenantId, {
      name,
      type: 'postgres',
      config: inTransit(key, tenantId, localPostgresConfig(password)),
    })
  ).data.id;
}

/** A password as the catalog stored it before key ids: `enc:v1:`, bound to the field name only. */
function v1Sealed(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from('password', 'utf8'));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return 'enc:v1:' + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
}

function serviceWith(keys: Buffer | SecretKeys): ConnectorsService {
  return new ConnectorsService(cat.ds, new ConnectorSecrets(keys));
}

describe('a connector secret copied into another row', () => {
  it.each([
    ['of the same tenant', false],
    ['of another tenant', true],
  ])(
    'does not open in a connector %s: Test Connection fails with a config_error naming no secret, an update asks for it again',
    async (_, otherTenant) => {
      const victimTenant = newTenant();
      const thiefTenant = otherTenant ? newTenant() : victimTenant;
      const secret = `victim-${randomBytes(8).toString('hex')}`;
      const victim = await localConnector(cat.connectors, cat.key, victimTenant, secret);
      const thief = await localConnector(
        cat.connectors,
        cat.key,
        thiefTenant,
        `thief-${randomBytes(8).toString('hex')}`,
      );
      await setStoredPassword(thief, (await rawConfig(victim))['password'] as string);

      const result = await cat.connectors.test(thiefTenant, thief);
      expect(result).toMatchObject({
        ok: false,
        error_class: 'config_error',
        checks: [{ name: 'secrets', ok: false }],
      });
      expect(result.message).toMatch(
        /^the stored secret password cannot be used: sealed for another connector.*send it again/,
      );
      expect(JSON.stringify(result)).not.toContain(secret);
      expect((await cat.connectors.get(thiefTenant, thief)).data).toMatchObject({
        status: 'failed',
        config: { password: SECRET_MASK },
      });

      const kept = await rejection(
        cat.connectors.update(thiefTenant, thief, {
          name: 'thief',
          config: { ...localPostgresConfig(), password: SECRET_MASK },
        }),
      );
      expect(kept.code).toBe('validation_failed');
      expect(kept.errors).toEqual([expect.objectContaining({ path: 'config.password', code: 'secret_required' })]);
      expect(kept.message).not.toContain(secret);

      // Sending it again repairs the connector; the victim's own secret still opens where it belongs.
      await cat.connectors.update(thiefTenant, thief, {
        name: 'thief',
        config: inTransit(cat.key, thiefTenant, localPostgresConfig('fresh-password')),
      });
      expect((await cat.connectors.test(thiefTenant, thief)).ok).toBe(true);
      expect((await cat.connectors.test(victimTenant, victim)).ok).toBe(true);
    },
  );
});

describe('re-seal', () => {
  it('keeps a stored v1 secret working, then seals it bound to its connector under the current key, once', async () => {
    const t = newTenant();
    const id = await localConnector(cat.connectors, cat.key, t, 'ignored');
    await setStoredPassword(id, v1Sealed(cat.key, 'legacy-password'));
    expect((await cat.connectors.test(t, id)).ok).toBe(true);

    const secrets = new ConnectorSecrets(cat.key);
    const first = await resealConnectorSecrets(cat.ds, secrets);
    expect(first).toMatchObject({ resealed: 1, unreadable: 0, skipped: false });
    const resealed = (await rawConfig(id))['password'] as string;
    expect(resealed).toMatch(new RegExp(`^enc:v2:${keyIdOf(cat.key)}:`));
    const stored = await rawConfig(id);
    expect(secrets.open('postgres', stored, { tenantId: t, connectorId: id })['password']).toBe('legacy-password');
    expect(() => secrets.open('postgres', stored, { tenantId: newTenant(), connectorId: id })).toThrow(
      /could not be decrypted/,
    );
    expect((await cat.connectors.test(t, id)).ok).toBe(true);

    expect(await resealConnectorSecrets(cat.ds, secrets)).toMatchObject({ resealed: 0, unreadable: 0 });
    expect((await rawConfig(id))['password']).toBe(resealed);
  });

  it('leaves a value that does not open as it is and names its row, never its content', async () => {
    const t = newTenant();
    const id = await localConnector(cat.connectors, cat.key, t, 'ignored');
    const foreign = v1Sealed(randomBytes(32), 'under-a-lost-key');
    await setStoredPassword(id, foreign);
    const outcome = await resealConnectorSecrets(cat.ds, new ConnectorSecrets(cat.key));
    expect(outcome.unreadable).toBeGreaterThanOrEqual(1);
    expect(outcome.unreadableIds).toContain(id);
    expect(JSON.stringify(outcome)).not.toContain('under-a-lost-key');
    expect((await rawConfig(id))['password']).toBe(foreign);
    expect((await cat.connectors.test(t, id)).error_class).toBe('config_error');
  });
});

describe('rotation of SECRETS_KEY', () => {
  it('seal with A, rotate to B with A previous, re-seal, remove A: every secret still opens', async () => {
    const keyA = randomBytes(32);
    const keyB = randomBytes(32);
    const t = newTenant();
    const underA = serviceWith(keyA);
    const id = await localConnector(underA, keyA, t, 'rotated-password');
    const v1 = await localConnector(underA, keyA, t, 'ignored');
    await setStoredPassword(v1, v1Sealed(keyA, 'v1-under-a'));
    expect((await rawConfig(id))['password']).toMatch(new RegExp(`^enc:v2:${keyIdOf(keyA)}:`));

    // B alone cannot open A's values (a rotation that forgot the previous key fails cleanly, it does not 500).
    expect((await serviceWith(keyB).test(t, id)).error_class).toBe('config_error');

    const rotating: SecretKeys = { current: keyB, previous: [keyA] };
    expect((await serviceWith(rotating).test(t, id)).ok).toBe(true);
    const outcome = await resealConnectorSecrets(cat.ds, new ConnectorSecrets(rotating));
    expect(outcome.resealed).toBeGreaterThanOrEqual(2);
    for (const c of [id, v1]) expect((await rawConfig(c))['password']).toMatch(new RegExp(`^enc:v2:${keyIdOf(keyB)}:`));

    const afterRotation = new ConnectorSecrets(keyB);
    expect(afterRotation.open('postgres', await rawConfig(id), { tenantId: t, connectorId: id })['password']).toBe(
      'rotated-password',
    );
    expect(afterRotation.open('postgres', await rawConfig(v1), { tenantId: t, connectorId: v1 })['password']).toBe(
      'v1-under-a',
    );
    expect((await serviceWith(keyB).test(t, id)).ok).toBe(true);
  });
});
