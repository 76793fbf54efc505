/** The http (REST API) connector driver: Test Connection, paged JSON reads, batched JSON POSTs. */
import type { ConnectorDriver, ReadRequest, Row, WriteRequest } from '../types.js';
import { httpInfo, parseHttpConfig } from './http.config.js';
import { HttpSession } from './http-session.js';
import { readRecords } from './read.js';
import { testHttp } from './test-connection.js';
import { postBatches } from './write.js';

export const httpDriver: ConnectorDriver = {
  info: httpInfo,

  test: testHttp,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    return (async function* () {
      yield* readRecords(new HttpSession(parseHttpConfig(config)), req);
    })();
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    return postBatches(new HttpSession(parseHttpConfig(config)), req, batches);
  },
};
