/** Reads one object, every data object under a prefix, or a glob's matches, in key order, as batches of rows. */
import { decodeFile } from '../formats/decode.js';
import { chooseFormat } from '../formats/file-format.js';
import { batchSizeOf, nodePathOf } from '../file/read.js';
import type { ReadRequest, Row } from '../types.js';
import { newS3Client, toS3ConnectorError } from './s3-client.js';
import { keysToRead, objectSource } from './s3-objects.js';
import type { S3Config } from './s3.config.js';

export async function* readObjects(cfg: S3Config, req: ReadRequest): AsyncGenerator<Row[]> {
  const { signal } = req;
  const batchSize = batchSizeOf(req);
  const client = newS3Client(cfg);
  try {
    const keys = await keysToRead(client, cfg, nodePathOf(req), signal);
    for (const key of keys) {
      signal?.throwIfAborted();
      const format = chooseFormat(req['format'], cfg.format, key);
      const source = objectSource(client, cfg.bucket, key, signal);
      for await (const batch of decodeFile(format, source, { batchSize, name: key, csvDelimiter: cfg.csv_delimiter })) {
        signal?.throwIfAborted();
        yield batch;
      }
    }
  } catch (err) {
    throw toS3ConnectorError(err, cfg.bucket, signal);
  } finally {
    client.destroy();
  }
}
