/**
 * Writes rows as one new object, streamed through lib-storage's Upload: one PUT when the data fits in a part,
 * a multipart upload otherwise (parts of `part_size_mb`). A `path` with a data extension names the key:
 * `overwrite` replaces it, `append` writes it when absent and otherwise a part object beside it. Any other path is
 * a prefix: `append` adds a part object, `overwrite` also deletes the earlier objects of that format directly under it.
 */
import { DeleteObjectsCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { ConnectorError } from '../connector-error.js';
import { encodeRows } from '../formats/encode.js';
import { chooseFormat, extensionOf, formatOfName, partFileName, type FileFormat } from '../formats/file-format.js';
import { nodePathOf } from '../file/read.js';
import type { Row, WriteRequest } from '../types.js';
import { newS3Client, toS3ConnectorError } from './s3-client.js';
import { listKeys, objectExists } from './s3-objects.js';
import type { S3Config } from './s3.config.js';

const CONTENT_TYPES: Record<FileFormat, string> = {
  csv: 'text/csv',
  jsonl: 'application/x-ndjson',
  parquet: 'application/vnd.apache.parquet',
};

/** Where a write goes: the object's key and format, and whether the node's path named the key. */
export interface ObjectTarget {
  key: string;
  format: FileFormat;
  namesKey: boolean;
}

export async function objectTarget(client: S3Client, cfg: S3Config, req: WriteRequest): Promise<ObjectTarget> {
  if (req.mode === 'upsert')
    throw new ConnectorError('the s3 connector cannot upsert: use append or overwrite', 'config_error');
  const path = nodePathOf(req);
  const namesKey = formatOfName(path) !== undefined && !path.endsWith('/');
  const format = chooseFormat(req['format'], cfg.format ?? 'jsonl', namesKey ? path : '');
  const key = await targetKey(client, cfg, path, namesKey, format, req.mode, req.signal);
  return { key, format, namesKey };
}

/** A write of no rows creates no object, except an overwrite of a named key (which then holds no rows). */
export const writesNothingWhenEmpty = (target: ObjectTarget, mode: WriteRequest['mode']): boolean =>
  !(target.namesKey && mode === 'overwrite');

/** Streams `body` to the target's key; a prefix's overwrite then deletes the prefix's earlier objects of the format. */
export async function putObject(
  client: S3Client,
  cfg: S3Config,
  target: ObjectTarget,
  mode: WriteRequest['mode'],
  body: Readable,
  signal?: AbortSignal,
): Promise<void> {
  const upload = new Upload({
    client,
    params: { Bucket: cfg.bucket, Key: target.key, Body: body, ContentType: CONTENT_TYPES[target.format] },
    partSize: cfg.part_size_mb * 1024 * 1024,
    queueSize: 2,
    leavePartsOnError: false,
  });
  const onAbort = () => void upload.abort().catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await upload.done();
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  signal?.throwIfAborted();
  if (!target.namesKey && mode === 'overwrite') await deleteOthers(client, cfg, target.key, target.format, signal);
}

export async function writeObject(
  cfg: S3Config,
  req: WriteRequest,
  batches: AsyncIterable<Row[]>,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const client = newS3Client(cfg);
  try {
    const target = await objectTarget(client, cfg, req);
    let rows = 0;
    const chunks = encodeRows(target.format, batches, { csvDelimiter: cfg.csv_delimiter, onRows: (n) => (rows += n) });
    // Peek at the first chunk: writing nothing creates no object (except an overwrite of a named key).
    const iterator = chunks[Symbol.asyncIterator]();
    const first = await iterator.next();
    if (first.done && writesNothingWhenEmpty(target, req.mode)) return { rows_written: 0 };
    const body = Readable.from(
      (async function* () {
        if (!first.done) yield first.value;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
      })(),
    );
    await putObject(client, cfg, target, req.mode, body, signal);
    return { rows_written: rows };
  } catch (err) {
    throw toS3ConnectorError(err, cfg.bucket, signal);
  } finally {
    client.destroy();
  }
}

async function targetKey(
  client: S3Client,
  cfg: S3Config,
  path: string,
  namesKey: boolean,
  format: FileFormat,
  mode: WriteRequest['mode'],
  signal?: AbortSignal,
): Promise<string> {
  if (!namesKey) {
    const folder = cfg.prefix + (path === '' || path.endsWith('/') ? path : `${path}/`);
    return folder + partFileName(format);
  }
  const key = cfg.prefix + path;
  if (mode !== 'append' || !(await objectExists(client, cfg.bucket, key, signal))) return key;
  const slash = key.lastIndexOf('/');
  const name = key.slice(slash + 1);
  const stem = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : name;
  return key.slice(0, slash + 1) + partFileName(format, `${stem}-part`);
}

/** Deletes the objects of this format directly under the new object's prefix, except the new one. */
async function deleteOthers(
  client: S3Client,
  cfg: S3Config,
  keep: string,
  format: FileFormat,
  signal?: AbortSignal,
): Promise<void> {
  const folder = keep.slice(0, keep.lastIndexOf('/') + 1);
  const doomed: string[] = [];
  for await (const key of listKeys(client, cfg.bucket, folder, signal, '/')) {
    if (key !== keep && key.endsWith(extensionOf(format))) doomed.push(key);
  }
  for (let i = 0; i < doomed.length; i += 1000) {
    const objects = doomed.slice(i, i + 1000).map((Key) => ({ Key }));
    await client.send(new DeleteObjectsCommand({ Bucket: cfg.bucket, Delete: { Objects: objects, Quiet: true } }), {
      abortSignal: signal,
    });
  }
}
