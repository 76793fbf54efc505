/**
 * The typed S3 sink: the run's DuckDB writes the input table into a file of the run's scratch folder with its own
 * `COPY ... TO` (formats/export-table.ts keeps the types), and the file is streamed to the object under the row
 * sink's rules (write.ts: key naming, modes; one PUT when it fits in a part, a multipart upload otherwise). The
 * scratch file is always removed.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { exportTable } from '../formats/export-table.js';
import { extensionOf } from '../formats/file-format.js';
import type { DuckDBTable, WriteRequest } from '../types.js';
import { newS3Client, toS3ConnectorError } from './s3-client.js';
import type { S3Config } from './s3.config.js';
import { objectTarget, putObject, writesNothingWhenEmpty } from './write.js';
import { removeFile } from '../remove-file.js';

export async function writeObjectFromTable(
  cfg: S3Config,
  req: WriteRequest,
  source: DuckDBTable,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const client = newS3Client(cfg);
  let scratch: string | undefined;
  try {
    const target = await objectTarget(client, cfg, req);
    scratch = join(source.scratchDir, `s3-sink-${randomUUID()}${extensionOf(target.format)}`);
    const rows = await exportTable(source, target.format, scratch, { csvDelimiter: cfg.csv_delimiter });
    signal?.throwIfAborted();
    if (rows === 0 && writesNothingWhenEmpty(target, req.mode)) return { rows_written: 0 };
    await putObject(client, cfg, target, req.mode, createReadStream(scratch), signal);
    return { rows_written: rows };
  } catch (err) {
    throw toS3ConnectorError(err, cfg.bucket, signal);
  } finally {
    client.destroy();
    if (scratch !== undefined) await removeFile(scratch);
  }
}
