/**
 * Secret fields of a connector config: masked in answers, kept on update when sent masked (unless the connector
 * moves), and sealed at rest with @conduit/secrets (the field name bound as additional data, so a ciphertext moved
 * to another field does not open). Messages here never include a secret or the key.
 */
import { SecretBox, isSealed, parseSecretsKey } from '@conduit/secrets';
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

/**
 * The secret fields an update must send again: those kept as SECRET_MASK (with a stored value) while a location
 * field changes, since the stored secret would otherwise follow the connector to the new place. Empty when none.
 */
export function secretsToResend(
  type: string,
  incoming: Record<string, unknown>,
  stored: Record<string, unknown>,
): string[] {
  const info = infoOf(type);
  const moved = info.location_fields.some((field) => !sameValue(effective(info, incoming, field), effective(info, stored, field)));
  if (!moved) return [];
  return info.secret_fields.filter((field) => incoming[field] === SECRET_MASK && hasValue(stored, field));
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function boxOf(key: Buffer): SecretBox {
  return new SecretBox(key);
}

/**
 * A copy with every present secret sealed. The input is plaintext: a value that merely looks sealed is sealed too,
 * so a ciphertext pasted in by a client can never be opened on its behalf.
 */
export function encryptSecrets(type: string, config: Record<string, unknown>, key: Buffer): Record<string, unknown> {
  const box = boxOf(key);
  const out = { ...config };
  for (const field of infoOf(type).secret_fields) {
    if (!hasValue(out, field)) continue;
    const value = out[field];
    if (typeof value !== 'string') throw new TypeError(`secret field "${field}" must be a string`);
    out[field] = box.seal(value, field);
  }
  return out;
}

/** A copy with every sealed secret opened; throws when a value was tampered with or the key is wrong. */
export function decryptSecrets(type: string, config: Record<string, unknown>, key: Buffer): Record<string, unknown> {
  const box = boxOf(key);
  const out = { ...config };
  for (const field of infoOf(type).secret_fields) {
    const value = out[field];
    if (isSealed(value)) out[field] = box.open(value, field, `secret field "${field}"`);
  }
  return out;
}
