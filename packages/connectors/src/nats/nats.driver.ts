/** The nats connector driver: Test Connection, bounded JetStream fetches, acknowledged JetStream publishing. */
import type { ConnectorDriver, ReadRequest, Row, WriteRequest } from '../types.js';
import { natsInfo, parseNatsConfig } from './nats.config.js';
import { fetchFromStream } from './read.js';
import { testNats } from './test-connection.js';
import { publishRows } from './write.js';

export const natsDriver: ConnectorDriver = {
  info: natsInfo,

  test: testNats,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    return (async function* () {
      yield* fetchFromStream(parseNatsConfig(config), req);
    })();
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    return publishRows(parseNatsConfig(config), req, batches);
  },
};
