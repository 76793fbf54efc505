/** The mysql connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import type { ConnectorTypeInfo } from '../types.js';

export type MysqlSslMode = 'disable' | 'require' | 'verify-full';

export interface MysqlConfig {
  host: string;
  /** Default 3306. */
  port: number;
  database: string;
  user: string;
  password: string | undefined;
  /** Default `disable`. */
  ssl: MysqlSslMode;
  /** Limit on establishing a connection; default 30 s (Test Connection has its own deadline). */
  connect_timeout_ms: number;
}

export const mysqlInfo: ConnectorTypeInfo = {
  type: 'mysql',
  category: 'database',
  description: 'MySQL or MariaDB database: read tables or queries, write with multi-row inserts, run statements.',
  roles: ['source', 'sink', 'sql'],
  secret_fields: CONNECTOR_SECRET_FIELDS.mysql,
  location_fields: ['host', 'port'],
  config_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      host: { type: 'string', minLength: 1, maxLength: 255, description: 'Host name or IP address' },
      port: { type: 'integer', minimum: 1, maximum: 65535, default: 3306 },
      database: { type: 'string', minLength: 1, maxLength: 64 },
      user: { type: 'string', minLength: 1, maxLength: 80 },
      password: { type: 'string', maxLength: 1024, writeOnly: true, 'x-secret': true },
      ssl: { type: 'string', enum: ['disable', 'require', 'verify-full'], default: 'disable' },
      connect_timeout_ms: { type: 'integer', minimum: 1, maximum: 600000, default: 30000 },
    },
    required: ['host', 'database', 'user'],
    additionalProperties: false,
  },
};

/** Validates and applies defaults; throws a config_error ConnectorError naming every problem. */
export function parseMysqlConfig(config: Record<string, unknown>): MysqlConfig {
  assertValidConfig(mysqlInfo, config);
  return {
    host: config['host'] as string,
    port: (config['port'] as number | undefined) ?? 3306,
    database: config['database'] as string,
    user: config['user'] as string,
    password: config['password'] as string | undefined,
    ssl: (config['ssl'] as MysqlSslMode | undefined) ?? 'disable',
    connect_timeout_ms: (config['connect_timeout_ms'] as number | undefined) ?? 30_000,
  };
}
