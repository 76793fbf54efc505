// What differs between a resource as the file wants it and as the API holds it, field by field.
import { connectorTypeInfos } from '@conduit/connectors/type-infos';
import type { Connector } from '@conduit/sdk';

/** JSON with keys sorted, so that two equal values compare equal whatever their key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

export const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

/** The names of the fields whose wanted value differs from the held one (`undefined` wanted means the default). */
export function changedFields(
  wanted: Record<string, unknown>,
  held: Record<string, unknown>,
  defaults: Record<string, unknown> = {},
): string[] {
  return Object.keys(wanted).filter(
    (key) => !same(wanted[key] ?? defaults[key] ?? null, held[key] ?? defaults[key] ?? null),
  );
}

const SECRET_MASK = '********';
const INFOS = new Map(connectorTypeInfos().map((info) => [info.type, info]));

export interface ConnectorDiffOptions {
  /** Secrets cannot be read back (the API answers "********"): count them as changed to send them again. */
  updateSecrets: boolean;
}

/**
 * The config keys that differ. A secret the API holds (masked) counts as unchanged unless `updateSecrets`: the
 * file's value cannot be compared with what was stored. A key the file leaves out is unchanged while the API holds
 * the type's default for it.
 */
export function connectorConfigChanges(
  wanted: Record<string, unknown>,
  held: Connector,
  options: ConnectorDiffOptions,
): string[] {
  const info = INFOS.get(held.type);
  const secrets = new Set(info?.secret_fields ?? []);
  const properties = (info?.config_schema['properties'] ?? {}) as Record<string, { default?: unknown }>;
  const heldConfig: Record<string, unknown> = held.config;
  const keys = new Set([...Object.keys(wanted), ...Object.keys(heldConfig)]);
  const changes: string[] = [];
  for (const key of keys) {
    const want = wanted[key];
    const have = heldConfig[key];
    if (secrets.has(key)) {
      const isSet = have === SECRET_MASK;
      if ((want !== undefined) !== isSet || (want !== undefined && options.updateSecrets))
        changes.push(`config.${key}`);
      continue;
    }
    const fallback = properties[key]?.default;
    if (!same(want ?? fallback ?? null, have ?? fallback ?? null)) changes.push(`config.${key}`);
  }
  return changes.sort();
}
