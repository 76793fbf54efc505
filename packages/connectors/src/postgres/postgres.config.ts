/** The postgres connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import { configField, configObject } from '../config-schema-fields.js';
import type { ConnectorTypeInfo } from '../types.js';

export type PostgresSslMode = 'disable' | 'require' | 'verify-full';

export interface PostgresConfig {
  host: string;
  /** Default 5432. */
  port: number;
  database: string;
  user: string;
  password: string | undefined;
  /** Default `disable`. */
  ssl: PostgresSslMode;
  /** Default schema for tables named without one; default `public`. */
  schema: string;
  /** Limit on establishing a connection; none by default (Test Connection has its own). */
  connect_timeout_ms: number | undefined;
}

export const postgresInfo: ConnectorTypeInfo = {
  type: 'postgres',
  category: 'database',
  description: 'PostgreSQL database: read tables or queries, write with COPY, run statements.',
  roles: ['source', 'sink', 'sql'],
  secret_fields: CONNECTOR_SECRET_FIELDS.postgres,
  location_fields: ['host', 'port', 'ssl'],
  config_schema: configObject(
    {
      host: configField.host(),
      port: configField.port(5432),
      database: { type: 'string', minLength: 1, maxLength: 63 },
      user: configField.userName(63),
      password: configField.password(),
      ssl: configField.sslMode(),
      schema: { type: 'string', minLength: 1, maxLength: 63, default: 'public' },
      connect_timeout_ms: configField.connectTimeout(1),
    },
    ['host', 'database', 'user'],
  ),
};

/** Validates and applies defaults; throws a config_error ConnectorError naming every problem. */
export function parsePostgresConfig(config: Record<string, unknown>): PostgresConfig {
  assertValidConfig(postgresInfo, config);
  return {
    host: config['host'] as string,
    port: (config['port'] as number | undefined) ?? 5432,
    database: config['database'] as string,
    user: config['user'] as string,
    password: config['password'] as string | undefined,
    ssl: (config['ssl'] as PostgresSslMode | undefined) ?? 'disable',
    schema: (config['schema'] as string | undefined) ?? 'public',
    connect_timeout_ms: config['connect_timeout_ms'] as number | undefined,
  };
}
