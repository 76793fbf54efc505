/** The mysql connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import { configField, configObject } from '../config-schema-fields.js';
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
  location_fields: ['host', 'port', 'ssl'],
  config_schema: configObject(
    {
      host: configField.host(),
      port: configField.port(3306),
      database: { type: 'string', minLength: 1, maxLength: 64 },
      user: configField.userName(80),
      password: configField.password(),
      ssl: configField.sslMode(),
      connect_timeout_ms: configField.connectTimeout(1, 30000),
    },
    ['host', 'database', 'user'],
  ),
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
