/** The mqtt connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import { configField, configObject } from '../config-schema-fields.js';
import type { ConnectorTypeInfo } from '../types.js';

export interface MqttConfig {
  host: string;
  /** Default 1883 (8883 is usual with tls). */
  port: number;
  username: string | undefined;
  password: string | undefined;
  /** mqtts; default false. */
  tls: boolean;
  /** Default 10000. */
  connect_timeout_ms: number;
}

export const mqttInfo: ConnectorTypeInfo = {
  type: 'mqtt',
  category: 'message_queue',
  description: 'MQTT broker: collect a bounded batch from a topic subscription, publish JSON messages with QoS 1.',
  roles: ['source', 'sink'],
  secret_fields: CONNECTOR_SECRET_FIELDS.mqtt,
  location_fields: ['host', 'port', 'tls'],
  config_schema: configObject(
    {
      host: configField.host(),
      port: configField.port(1883),
      username: configField.userName(),
      password: configField.password(),
      tls: configField.tls(),
      connect_timeout_ms: configField.connectTimeout(100, 10000),
    },
    ['host'],
  ),
};

export function parseMqttConfig(config: Record<string, unknown>): MqttConfig {
  assertValidConfig(mqttInfo, config);
  return {
    host: config['host'] as string,
    port: (config['port'] as number | undefined) ?? 1883,
    username: config['username'] as string | undefined,
    password: config['password'] as string | undefined,
    tls: (config['tls'] as boolean | undefined) ?? false,
    connect_timeout_ms: (config['connect_timeout_ms'] as number | undefined) ?? 10000,
  };
}

export const mqttSecrets = (cfg: MqttConfig): string[] => (cfg.password ? [cfg.password] : []);
