/** The duckdb connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import type { ConnectorTypeInfo } from '../types.js';

export interface DuckdbConfig {
  /** Database file relative to the data root. */
  path: string;
  /** Schema of bare table names; default `main`. */
  schema: string;
}

export const duckdbInfo: ConnectorTypeInfo = {
  type: 'duckdb',
  category: 'warehouse',
  description: 'DuckDB database file under the data root: read tables or queries, bulk-load rows, run statements.',
  roles: ['source', 'sink', 'sql'],
  secret_fields: CONNECTOR_SECRET_FIELDS.duckdb,
  location_fields: ['path'],
  config_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, maxLength: 1024, description: 'Database file relative to the data root' },
      schema: { type: 'string', minLength: 1, maxLength: 128, default: 'main' },
    },
    required: ['path'],
    additionalProperties: false,
  },
};

export function parseDuckdbConfig(config: Record<string, unknown>): DuckdbConfig {
  assertValidConfig(duckdbInfo, config);
  return { path: config['path'] as string, schema: (config['schema'] as string | undefined) ?? 'main' };
}
