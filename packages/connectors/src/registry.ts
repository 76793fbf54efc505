/** Every connector type the platform knows, one driver per type. Add a driver here to make its type available. */
import { amqpDriver } from './amqp/amqp.driver.js';
import { httpDriver } from './http/http.driver.js';
import { fileDriver } from './file/file.driver.js';
import { mysqlDriver } from './mysql/mysql.driver.js';
import { duckdbDriver } from './duckdb/duckdb.driver.js';
import { s3Driver } from './s3/s3.driver.js';
import { natsDriver } from './nats/nats.driver.js';
import { redisDriver } from './redis/redis.driver.js';
import { mqttDriver } from './mqtt/mqtt.driver.js';
import { openAiDriver } from './openai/openai.driver.js';
import { postgresDriver } from './postgres/postgres.driver.js';
import type { ConnectorDriver, ConnectorTypeInfo } from './types.js';

const drivers: ReadonlyMap<string, ConnectorDriver> = new Map(
  [
    postgresDriver,
    mysqlDriver,
    fileDriver,
    s3Driver,
    duckdbDriver,
    httpDriver,
    amqpDriver,
    natsDriver,
    redisDriver,
    mqttDriver,
    openAiDriver,
  ].map((driver) => [driver.info.type, driver] as const),
);

/** Every type's metadata, sorted by type. */
export function connectorTypes(): ConnectorTypeInfo[] {
  return [...drivers.values()].map((driver) => driver.info).sort((a, b) => a.type.localeCompare(b.type));
}

export function getDriver(type: string): ConnectorDriver | undefined {
  return drivers.get(type);
}
