/**
 * Secret fields of a connector config: masked in answers, kept on update when sent masked (unless the connector
 * moves), and sealed at rest with @conduit/secrets, bound to tenant, connector and field, so a ciphertext moved to
 * another field, connector or tenant does not open. Messages here never include a secret or the key.
 */
import {
  SecretOpenError,
  V1_BINDING,
  connectorSecretAad,
  isSealed,
  parseSecretsKey,
  type SecretBox,
} from '@conduit/secrets';
import { getDriver } from './registry.js';
import { SECRET_MASK } from './secret-mask.js';
import type { ConnectorTypeInfo } from './types.js';

export { SECRET_MASK, parseSecretsKey };

function infoOf(type: string): ConnectorTypeInfo {
  const driver = getDriver(type);
  if (!driver) throw new Error(`unknown connector type "${type}"`);
  return driver.info;
}

function hasValue(config: Record<string, unknown>, field: string): boolean {
  return Object.hasOwn(config, field) && config[field] !== undefined && config[field] !== null;
}

/** A copy with every present secret replaced by SECRET_MASK. */
export function maskSecrets(type: string, config: Record<string, unknown>): Record<string, unknown> {
  const out = { ...config };
  for (const field of infoOf(type).secret_fields) {
    if (hasValue(out, field)) out[field] = SECRET_MASK;
  }
  return out;
}

/** On update: a secret sent as SECRET_MASK keeps the stored value (or is dropped when none is stored). */
export function mergeSecrets(
  type: string,
  incoming: Record<string, unknown>,
  stored: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...incoming };
  for (const field of infoOf(type).secret_fields) {
    if (out[field] !== SECRET_MASK) continue;
    if (hasValue(stored, field)) out[field] = stored[field];
    else delete out[field];
  }
  return out;
}

/** A location field's value as the driver would use it: the schema's default when absent. */
function effective(info: ConnectorTypeInfo, config: Record<string, unknown>, field: string): unknown {
  if (hasValue(config, field)) return config[field];
  const properties = info.config_schema['properties'] as Record<string, { default?: unknown } | undefined> | undefined;
  return properties?.[field]?.default;
}

/** The location fields whose value as the driver would use it differs between `incoming` and `stored`. */
export function movedLocationFields(
  type: string,
  incoming: Record<string, unknown>,
  stored: Record<string, unknown>,
): string[] {
  const info = infoOf(type);
  return info.location_fields.filter(
    (field) => !sameValue(effective(info, incoming, field), effective(info, stored, field)),
  );
}

/**
 * The secret fields an update must send again: those kept as SECRET_MASK (with a stored value) while a location
 * field changes, since the stored secret would otherwise follow the connector to the new place. Empty when none.
 */
export function secretsToResend(
  type: string,
  incoming: Record<string, unknown>,
  stored: Record<string, unknown>,
): string[] {
  if (movedLocationFields(type, incoming, stored).length === 0) return [];
  return infoOf(type).secret_fields.filter((field) => incoming[field] === SECRET_MASK && hasValue(stored, field));
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Where a stored secret belongs: its additional data binds it to the tenant, the connector and the field. */
export interface SecretOwner {
  tenantId: string;
  connectorId: string;
}

function aadOf(owner: SecretOwner, field: string): string {
  return connectorSecretAad(owner.tenantId, owner.connectorId, field);
}

/** Values sealed before key ids (v1) bound the field name only; they open so until the re-seal binds them. */
function openField(box: SecretBox, owner: SecretOwner, field: string, sealed: string): string {
  return box.open(sealed, aadOf(owner, field), `secret field "${field}"`, { v1Aad: V1_BINDING.connectorSecret(field) });
}

/**
 * A copy with every present secret sealed for its connector. The input is plaintext: a value that merely looks
 * sealed is sealed too, so a ciphertext pasted in by a client can never be opened on its behalf.
 */
export function encryptSecrets(
  type: string,
  config: Record<string, unknown>,
  box: SecretBox,
  owner: SecretOwner,
): Record<string, unknown> {
  const out = { ...config };
  for (const field of infoOf(type).secret_fields) {
    if (!hasValue(out, field)) continue;
    const value = out[field];
    if (typeof value !== 'string') throw new TypeError(`secret field "${field}" must be a string`);
    out[field] = box.seal(value, aadOf(owner, field));
  }
  return out;
}

/**
 * A copy with every sealed secret opened; throws SecretOpenError (naming the field, never the value) when one was
 * sealed for another connector or tenant, under a key no longer configured, or tampered with.
 */
export function decryptSecrets(
  type: string,
  config: Record<string, unknown>,
  box: SecretBox,
  owner: SecretOwner,
): Record<string, unknown> {
  const out = { ...config };
  for (const field of infoOf(type).secret_fields) {
    const value = out[field];
    if (isSealed(value)) out[field] = openField(box, owner, field, value);
  }
  return out;
}

/** Like decryptSecrets, but a secret that does not open is left out and named in `unreadable` instead of throwing. */
export function decryptReadableSecrets(
  type: string,
  config: Record<string, unknown>,
  box: SecretBox,
  owner: SecretOwner,
): { config: Record<string, unknown>; unreadable: string[] } {
  const out = { ...config };
  const unreadable: string[] = [];
  for (const field of infoOf(type).secret_fields) {
    const value = out[field];
    if (!isSealed(value)) continue;
    try {
      out[field] = openField(box, owner, field, value);
    } catch (err) {
      if (!(err instanceof SecretOpenError)) throw err;
      delete out[field];
      unreadable.push(field);
    }
  }
  return { config: out, unreadable };
}

/**
 * The stored config with each secret not yet sealed as now (v1, or under a previous key) sealed again under the
 * current key and today's binding. `resealed` and `unreadable` name fields; a value that does not open stays as it is.
 */
export function resealSecrets(
  type: string,
  config: Record<string, unknown>,
  box: SecretBox,
  owner: SecretOwner,
): { config: Record<string, unknown>; resealed: string[]; unreadable: string[] } {
  const out = { ...config };
  const resealed: string[] = [];
  const unreadable: string[] = [];
  for (const field of infoOf(type).secret_fields) {
    const value = out[field];
    if (!isSealed(value) || box.isCurrent(value)) continue;
    try {
      out[field] = box.seal(openField(box, owner, field, value), aadOf(owner, field));
      resealed.push(field);
    } catch (err) {
      if (!(err instanceof SecretOpenError)) throw err;
      unreadable.push(field);
    }
  }
  return { config: out, resealed, unreadable };
}
