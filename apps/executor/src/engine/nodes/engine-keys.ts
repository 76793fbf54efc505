import { NODE_SETTINGS } from '@conduit/dag';

/** Node config keys the engine reads itself, which never reach a driver. */
const ENGINE_KEYS: ReadonlySet<string> = new Set(['connector_id', ...NODE_SETTINGS]);

/** The node's config without the engine's own keys: what a driver's request is made of. */
export function withoutEngineKeys(config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([key]) => !ENGINE_KEYS.has(key)));
}
