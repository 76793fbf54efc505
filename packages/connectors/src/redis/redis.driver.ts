/** The redis connector driver: Test Connection, bounded stream reads, XADD writes. */
import type { ConnectorDriver, ReadRequest, Row, WriteRequest } from '../types.js';
import { readStream } from './read.js';
import { parseRedisConfig, redisInfo } from './redis.config.js';
import { testRedis } from './test-connection.js';
import { appendRows } from './write.js';

export const redisDriver: ConnectorDriver = {
  info: redisInfo,

  test: testRedis,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    return (async function* () {
      yield* readStream(parseRedisConfig(config), req);
    })();
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    return appendRows(parseRedisConfig(config), req, batches);
  },
};
