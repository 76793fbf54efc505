/** The http (REST API) connector driver: Test Connection, paged JSON reads (typed by DuckDB's JSON reader), batched JSON POSTs. */
import type { ConnectorDriver, DuckDBTable, ReadRequest, Row, WriteRequest } from '../types.js';
import { httpInfo, parseHttpConfig } from './http.config.js';
import { HttpSession } from './http-session.js';
import { readRecords } from './read.js';
import { readRecordsIntoTable } from './read-into-table.js';
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

  async readIntoTable(config: Record<string, unknown>, req: ReadRequest, target: DuckDBTable) {
    return readRecordsIntoTable(new HttpSession(parseHttpConfig(config)), req, target);
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    return postBatches(new HttpSession(parseHttpConfig(config)), req, batches);
  },
};
