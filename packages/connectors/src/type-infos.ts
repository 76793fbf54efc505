/**
 * Every connector type's metadata and config schema, without its driver: what describes the API (the gateway's
 * OpenAPI document) needs, without loading DuckDB, the AWS SDK or any client library. Exported as
 * `@conduit/connectors/type-infos`; a spec checks it lists the registry's types.
 */
import { amqpInfo } from './amqp/amqp.config.js';
import { duckdbInfo } from './duckdb/duckdb.config.js';
import { fileInfo } from './file/file.config.js';
import { httpInfo } from './http/http.config.js';
import { mqttInfo } from './mqtt/mqtt.config.js';
import { mysqlInfo } from './mysql/mysql.config.js';
import { natsInfo } from './nats/nats.config.js';
import { openAiInfo } from './openai/openai.config.js';
import { postgresInfo } from './postgres/postgres.config.js';
import { redisInfo } from './redis/redis.config.js';
import { s3Info } from './s3/s3.config.js';
import type { ConnectorTypeInfo } from './types.js';

export type { ConnectorTypeInfo } from './types.js';

const INFOS: readonly ConnectorTypeInfo[] = [
  amqpInfo,
  duckdbInfo,
  fileInfo,
  httpInfo,
  mqttInfo,
  mysqlInfo,
  natsInfo,
  openAiInfo,
  postgresInfo,
  redisInfo,
  s3Info,
];

/** Every type's metadata, sorted by type (as the registry's connectorTypes()). */
export function connectorTypeInfos(): ConnectorTypeInfo[] {
  return [...INFOS].sort((a, b) => a.type.localeCompare(b.type));
}
