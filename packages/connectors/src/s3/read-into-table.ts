/**
 * A typed read of the s3 connector: the objects a read covers (s3-objects.ts: one object, a prefix's data objects or a
 * glob's matches, in key order) are streamed, one after the other, into files of the run's scratch folder through the
 * connector's client (so the network policy holds), then read there by DuckDB's own readers into the node's table.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { nodePathOf } from '../file/read.js';
import { columnOverridesOf } from '../formats/column-overrides.js';
import { chooseFormat, extensionOf } from '../formats/file-format.js';
import { withScratchFolder } from '../formats/scratch-folder.js';
import type { ScratchAllowance } from '../formats/scratch-limit.js';
import { loadFilesIntoTable, type ScratchDataFile } from '../formats/typed-file-read.js';
import type { DuckDBTable, ReadRequest, TypedReadResult } from '../types.js';
import { newS3Client, toS3ConnectorError } from './s3-client.js';
import { keysToRead } from './s3-objects.js';
import type { S3Config } from './s3.config.js';

async function download(
  client: S3Client,
  bucket: string,
  key: string,
  path: string,
  allowance: ScratchAllowance,
  signal?: AbortSignal,
): Promise<void> {
  const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal });
  const body = answer.Body as Readable;
  try {
    // An object that says it is too large is refused before its body is read; one that says nothing (or lies) is
    // counted as it streams in.
    if (answer.ContentLength !== undefined) allowance.ensureRoom(answer.ContentLength);
  } catch (err) {
    body.destroy();
    throw err;
  }
  await pipeline(body, allowance.counter(), createWriteStream(path, { flags: 'wx' }), { signal });
}

export async function readObjectsIntoTable(
  cfg: S3Config,
  req: ReadRequest,
  target: DuckDBTable,
): Promise<TypedReadResult> {
  const { signal } = req;
  const overrides = columnOverridesOf(req);
  const client = newS3Client(cfg);
  try {
    const keys = await keysToRead(client, cfg, nodePathOf(req), signal);
    return await withScratchFolder(target, 's3-read', async (folder, allowance) => {
      const files: ScratchDataFile[] = [];
      for (const [index, key] of keys.entries()) {
        signal?.throwIfAborted();
        const format = chooseFormat(req['format'], cfg.format, key);
        const path = join(folder, `${String(index).padStart(6, '0')}${extensionOf(format)}`);
        await download(client, cfg.bucket, key, path, allowance, signal);
        files.push({ path, format, name: key });
      }
      return loadFilesIntoTable(target, files, { csvDelimiter: cfg.csv_delimiter, overrides });
    });
  } catch (err) {
    throw toS3ConnectorError(err, cfg.bucket, signal);
  } finally {
    client.destroy();
  }
}
