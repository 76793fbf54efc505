/** The s3 connector driver: CSV, JSON lines and Parquet objects in S3 or an S3-compatible store. */
import { ConnectorError } from '../connector-error.js';
import type { ConnectorDriver, DuckDBTable, ReadRequest, Row, WriteRequest } from '../types.js';
import { readObjects } from './read.js';
import { readObjectsIntoTable } from './read-into-table.js';
import { parseS3Config, s3Info } from './s3.config.js';
import { testS3 } from './test-connection.js';
import { writeObject } from './write.js';
import { writeObjectFromTable } from './write-from-table.js';

function checkWriteMode(req: WriteRequest): void {
  if (req.mode !== 'append' && req.mode !== 'overwrite' && req.mode !== 'upsert') {
    throw new ConnectorError(`unknown write mode "${String(req.mode)}"`, 'config_error');
  }
}

export const s3Driver: ConnectorDriver = {
  info: s3Info,

  test: testS3,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    return (async function* () {
      yield* readObjects(parseS3Config(config), req);
    })();
  },

  async readIntoTable(config: Record<string, unknown>, req: ReadRequest, target: DuckDBTable) {
    return readObjectsIntoTable(parseS3Config(config), req, target);
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    const cfg = parseS3Config(config);
    checkWriteMode(req);
    return writeObject(cfg, req, batches);
  },

  async writeFromTable(config: Record<string, unknown>, req: WriteRequest, source: DuckDBTable) {
    const cfg = parseS3Config(config);
    checkWriteMode(req);
    return writeObjectFromTable(cfg, req, source);
  },
};
