/** The redis (streams) connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import { configField, configObject } from '../config-schema-fields.js';
import type { ConnectorTypeInfo } from '../types.js';

export interface RedisConfig {
  host: string;
  /** Default 6379. */
  port: number;
  /** An ACL user; default the `default` user. */
  username: string | undefined;
  password: string | undefined;
  /** Database number; default 0. */
  db: number;
  /** Default false. */
  tls: boolean;
  /** Default 10000. */
  connect_timeout_ms: number;
}

export const redisInfo: ConnectorTypeInfo = {
  type: 'redis',
  category: 'stream',
  description: 'Redis Streams: read a bounded batch with XRANGE or a consumer group (XREADGROUP), append with XADD.',
  roles: ['source', 'sink'],
  secret_fields: CONNECTOR_SECRET_FIELDS.redis,
  location_fields: ['host', 'port', 'tls'],
  config_schema: configObject(
    {
      host: configField.host(),
      port: configField.port(6379),
      username: configField.userName(),
      password: configField.password(),
      db: { type: 'integer', minimum: 0, maximum: 1000, default: 0 },
      tls: configField.tls(),
      connect_timeout_ms: configField.connectTimeout(100, 10000),
    },
    ['host'],
  ),
};

export function parseRedisConfig(config: Record<string, unknown>): RedisConfig {
  assertValidConfig(redisInfo, config);
  return {
    host: config['host'] as string,
    port: (config['port'] as number | undefined) ?? 6379,
    username: config['username'] as string | undefined,
    password: config['password'] as string | undefined,
    db: (config['db'] as number | undefined) ?? 0,
    tls: (config['tls'] as boolean | undefined) ?? false,
    connect_timeout_ms: (config['connect_timeout_ms'] as number | undefined) ?? 10000,
  };
}

export const redisSecrets = (cfg: RedisConfig): string[] => (cfg.password ? [cfg.password] : []);
