/** The postgres connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { compileConfigValidator } from '../config-schema-validator.js';
import { ConnectorError } from '../connector-error.js';
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
  location_fields: ['host', 'port'],
  config_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      host: { type: 'string', minLength: 1, maxLength: 255, description: 'Host name or IP address' },
      port: { type: 'integer', minimum: 1, maximum: 65535, default: 5432 },
      database: { type: 'string', minLength: 1, maxLength: 63 },
      user: { type: 'string', minLength: 1, maxLength: 63 },
      password: { type: 'string', maxLength: 1024, writeOnly: true, 'x-secret': true },
      ssl: { type: 'string', enum: ['disable', 'require', 'verify-full'], default: 'disable' },
      schema: { type: 'string', minLength: 1, maxLength: 63, default: 'public' },
      connect_timeout_ms: { type: 'integer', minimum: 1, maximum: 600000 },
    },
    required: ['host', 'database', 'user'],
    additionalProperties: false,
  },
};

const validate = compileConfigValidator(postgresInfo.config_schema);

/** Validates and applies defaults; throws a config_error ConnectorError naming every problem. */
export function parsePostgresConfig(config: Record<string, unknown>): PostgresConfig {
  const problems = validate(config);
  if (problems.length > 0) {
    const list = problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    throw new ConnectorError(`invalid postgres config: ${list}`, 'config_error');
  }
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
