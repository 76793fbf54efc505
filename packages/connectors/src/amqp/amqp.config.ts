/** The amqp (RabbitMQ) connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import { configField, configObject } from '../config-schema-fields.js';
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
  location_fields: ['host', 'port', 'vhost', 'tls'],
  config_schema: configObject(
    {
      host: configField.host(),
      port: configField.port(5672),
      vhost: { type: 'string', maxLength: 255, default: '/' },
      username: configField.userName(),
      password: configField.password(),
      tls: configField.tls(),
      connect_timeout_ms: configField.connectTimeout(100, 10000),
    },
    ['host', 'username'],
  ),
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
