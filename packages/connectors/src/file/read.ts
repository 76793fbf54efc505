/** Reads one file, a folder's data files or a glob's matches, in name order, as batches of rows. */
import { createReadStream } from 'node:fs';
import { asyncBufferFromFile } from 'hyparquet';
import { ConnectorError } from '../connector-error.js';
import { displayPath, tenantDataRoot } from '../data-root.js';
import { decodeFile } from '../formats/decode.js';
import { chooseFormat } from '../formats/file-format.js';
import { fileSystemError } from '../path-messages.js';
import type { ReadRequest, Row } from '../types.js';
import type { FileConfig } from './file.config.js';
import { listFiles } from './file-listing.js';

export const DEFAULT_READ_BATCH_SIZE = 5000;

export function batchSizeOf(req: ReadRequest): number {
  const size = req.batchSize ?? DEFAULT_READ_BATCH_SIZE;
  if (!Number.isInteger(size) || size < 1)
    throw new ConnectorError('batchSize must be a positive integer', 'config_error');
  return size;
}

/** The node's `path` (or `table`), relative to the connector's folder; empty means the folder itself. */
export function nodePathOf(req: { table?: unknown; [k: string]: unknown }): string {
  const path = req['path'] ?? req.table ?? '';
  if (typeof path !== 'string') throw new ConnectorError('path must be a string', 'config_error');
  return path;
}

export async function* readFiles(cfg: FileConfig, req: ReadRequest): AsyncGenerator<Row[]> {
  const batchSize = batchSizeOf(req);
  const root = tenantDataRoot(req.tenantId);
  const files = await listFiles(
    root,
    cfg.path,
    nodePathOf(req),
    req['format'] === undefined && cfg.format === undefined,
  );
  for (const file of files) {
    req.signal?.throwIfAborted();
    const format = chooseFormat(req['format'], cfg.format, file.path);
    const name = displayPath(root, file.path);
    const source = {
      stream: () => Promise.resolve(createReadStream(file.real)),
      randomAccess: () => asyncBufferFromFile(file.real),
    };
    try {
      for await (const batch of decodeFile(format, source, { batchSize, name, csvDelimiter: cfg.csv_delimiter })) {
        req.signal?.throwIfAborted();
        yield batch;
      }
    } catch (err) {
      throw await fileSystemError(err, root, file.path, 'cannot read');
    }
  }
}
