/** The file connector driver: CSV, JSON lines and Parquet files under the operator's data root. */
import { ConnectorError } from '../connector-error.js';
import type { ConnectorDriver, DuckDBTable, ReadRequest, Row, WriteRequest } from '../types.js';
import { fileInfo, parseFileConfig } from './file.config.js';
import { readFiles } from './read.js';
import { readFilesIntoTable } from './read-into-table.js';
import { classifyFileError, testFile } from './test-connection.js';
import { writeFile } from './write.js';
import { writeFileFromTable } from './write-from-table.js';

/** File system failures as ConnectorErrors (aborts stay as they are). */
function toFileError(err: unknown, signal?: AbortSignal): unknown {
  if (err instanceof ConnectorError || (signal?.aborted && err === signal.reason)) return err;
  const { error_class, message } = classifyFileError(err);
  return new ConnectorError(message, error_class, { cause: err });
}

function checkWriteMode(req: WriteRequest): void {
  if (req.mode !== 'append' && req.mode !== 'overwrite' && req.mode !== 'upsert') {
    throw new ConnectorError(`unknown write mode "${String(req.mode)}"`, 'config_error');
  }
}

export const fileDriver: ConnectorDriver = {
  info: fileInfo,

  test: testFile,

  read(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]> {
    return (async function* () {
      try {
        yield* readFiles(parseFileConfig(config), req);
      } catch (err) {
        throw toFileError(err, req.signal);
      }
    })();
  },

  async readIntoTable(config: Record<string, unknown>, req: ReadRequest, target: DuckDBTable) {
    return readFilesIntoTable(parseFileConfig(config), req, target).catch((err: unknown) => {
      throw toFileError(err, req.signal);
    });
  },

  async write(config: Record<string, unknown>, req: WriteRequest, batches: AsyncIterable<Row[]>) {
    const cfg = parseFileConfig(config);
    checkWriteMode(req);
    return writeFile(cfg, req, batches).catch((err: unknown) => {
      throw toFileError(err, req.signal);
    });
  },

  async writeFromTable(config: Record<string, unknown>, req: WriteRequest, source: DuckDBTable) {
    const cfg = parseFileConfig(config);
    checkWriteMode(req);
    return writeFileFromTable(cfg, req, source).catch((err: unknown) => {
      throw toFileError(err, req.signal);
    });
  },
};
