/** The mqtt connector driver: Test Connection, bounded topic collection, QoS 1 publishing. */
import type { ConnectorDriver, ReadRequest, Row, WriteRequest } from '../types.js';
import { mqttInfo, parseMqttConfig } from './mqtt.config.js';
import { subscribeTopic } from './read.js';
import { testMqtt } from './test-connection.js';
import { publishRows } from './write.js';

export const mqttDriver: ConnectorDriver = {
  info: mqttInfo,

  test: testMqtt,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    return (async function* () {
      yield* subscribeTopic(parseMqttConfig(config), req);
    })();
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    return publishRows(parseMqttConfig(config), req, batches);
  },
};
