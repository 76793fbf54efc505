/** The nats (NATS with JetStream) connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import { configField, configObject } from '../config-schema-fields.js';
import type { ConnectorTypeInfo } from '../types.js';

export interface NatsConfig {
  host: string;
  /** Default 4222. */
  port: number;
  user: string | undefined;
  password: string | undefined;
  /** A token instead of user/password. */
  token: string | undefined;
  /** Default false. */
  tls: boolean;
  /** Default 10000. */
  connect_timeout_ms: number;
}

export const natsInfo: ConnectorTypeInfo = {
  type: 'nats',
  category: 'message_queue',
  description: 'NATS JetStream: fetch a bounded batch from a stream consumer, publish JSON messages with acks.',
  roles: ['source', 'sink'],
  secret_fields: CONNECTOR_SECRET_FIELDS.nats,
  location_fields: ['host', 'port', 'tls'],
  config_schema: configObject(
    {
      host: configField.host(),
      port: configField.port(4222),
      user: configField.userName(),
      password: configField.password(),
      token: { type: 'string', maxLength: 4096, writeOnly: true, 'x-secret': true },
      tls: configField.tls(),
      connect_timeout_ms: configField.connectTimeout(100, 10000),
    },
    ['host'],
  ),
};

export function parseNatsConfig(config: Record<string, unknown>): NatsConfig {
  assertValidConfig(natsInfo, config);
  return {
    host: config['host'] as string,
    port: (config['port'] as number | undefined) ?? 4222,
    user: config['user'] as string | undefined,
    password: config['password'] as string | undefined,
    token: config['token'] as string | undefined,
    tls: (config['tls'] as boolean | undefined) ?? false,
    connect_timeout_ms: (config['connect_timeout_ms'] as number | undefined) ?? 10000,
  };
}

export const natsSecrets = (cfg: NatsConfig): string[] => [cfg.password, cfg.token].filter((s): s is string => !!s);
