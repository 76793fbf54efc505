/** Every connector type the platform knows, one driver per type. Add a driver here to make its type available. */
import { postgresDriver } from './postgres/postgres.driver.js';
import type { ConnectorDriver, ConnectorTypeInfo } from './types.js';

const drivers: ReadonlyMap<string, ConnectorDriver> = new Map(
  [postgresDriver].map((driver) => [driver.info.type, driver] as const),
);

/** Every type's metadata, sorted by type. */
export function connectorTypes(): ConnectorTypeInfo[] {
  return [...drivers.values()].map((driver) => driver.info).sort((a, b) => a.type.localeCompare(b.type));
}

export function getDriver(type: string): ConnectorDriver | undefined {
  return drivers.get(type);
}
