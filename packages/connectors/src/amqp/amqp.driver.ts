/** The amqp connector driver: Test Connection, bounded queue consumption, confirmed publishing. */
import type { ConnectorDriver, ReadRequest, Row, WriteRequest } from '../types.js';
import { amqpInfo, parseAmqpConfig } from './amqp.config.js';
import { consumeQueue } from './read.js';
import { testAmqp } from './test-connection.js';
import { publishRows } from './write.js';

export const amqpDriver: ConnectorDriver = {
  info: amqpInfo,

  test: testAmqp,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    return (async function* () {
      yield* consumeQueue(parseAmqpConfig(config), req);
    })();
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    return publishRows(parseAmqpConfig(config), req, batches);
  },
};
