/** The nats (NATS with JetStream) connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
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
  location_fields: ['host', 'port'],
  config_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      host: { type: 'string', minLength: 1, maxLength: 255 },
      port: { type: 'integer', minimum: 1, maximum: 65535, default: 4222 },
      user: { type: 'string', minLength: 1, maxLength: 255 },
      password: { type: 'string', maxLength: 1024, writeOnly: true, 'x-secret': true },
      token: { type: 'string', maxLength: 4096, writeOnly: true, 'x-secret': true },
      tls: { type: 'boolean', default: false },
      connect_timeout_ms: { type: 'integer', minimum: 100, maximum: 600000, default: 10000 },
    },
    required: ['host'],
    additionalProperties: false,
  },
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
