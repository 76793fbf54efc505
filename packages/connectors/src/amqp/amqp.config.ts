/** The amqp (RabbitMQ) connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import type { ConnectorTypeInfo } from '../types.js';

export interface AmqpConfig {
  host: string;
  /** Default 5672 (5671 is usual with tls). */
  port: number;
  /** Default `/`. */
  vhost: string;
  username: string;
  password: string | undefined;
  /** amqps; default false. */
  tls: boolean;
  /** Default 10000. */
  connect_timeout_ms: number;
}

export const amqpInfo: ConnectorTypeInfo = {
  type: 'amqp',
  category: 'message_queue',
  description:
    'AMQP 0-9-1 broker (RabbitMQ): consume a bounded batch from a queue, publish JSON messages with confirms.',
  roles: ['source', 'sink'],
  secret_fields: CONNECTOR_SECRET_FIELDS.amqp,
  location_fields: ['host', 'port', 'vhost'],
  config_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      host: { type: 'string', minLength: 1, maxLength: 255 },
      port: { type: 'integer', minimum: 1, maximum: 65535, default: 5672 },
      vhost: { type: 'string', maxLength: 255, default: '/' },
      username: { type: 'string', minLength: 1, maxLength: 255 },
      password: { type: 'string', maxLength: 1024, writeOnly: true, 'x-secret': true },
      tls: { type: 'boolean', default: false },
      connect_timeout_ms: { type: 'integer', minimum: 100, maximum: 600000, default: 10000 },
    },
    required: ['host', 'username'],
    additionalProperties: false,
  },
};

export function parseAmqpConfig(config: Record<string, unknown>): AmqpConfig {
  assertValidConfig(amqpInfo, config);
  return {
    host: config['host'] as string,
    port: (config['port'] as number | undefined) ?? 5672,
    vhost: (config['vhost'] as string | undefined) ?? '/',
    username: config['username'] as string,
    password: config['password'] as string | undefined,
    tls: (config['tls'] as boolean | undefined) ?? false,
    connect_timeout_ms: (config['connect_timeout_ms'] as number | undefined) ?? 10000,
  };
}
