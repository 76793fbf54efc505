/** Keys and bodies: which objects a read covers, and each object as a stream or as random access (for Parquet). */
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, NotFound, type S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { cachedAsyncBuffer, type AsyncBuffer } from 'hyparquet';
import { ConnectorError } from '../connector-error.js';
import type { FileSource } from '../formats/decode.js';
import { formatOfName, globBase, globMatcher, isGlob } from '../formats/file-format.js';
import type { S3Config } from './s3.config.js';

/** Every key under `prefix` (with `delimiter`, only the level directly under it), in S3's order (by name). */
export async function* listKeys(
  client: S3Client,
  bucket: string,
  prefix: string,
  signal?: AbortSignal,
  delimiter?: string,
): AsyncGenerator<string> {
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token, Delimiter: delimiter }),
      { abortSignal: signal },
    );
    for (const object of page.Contents ?? []) if (object.Key) yield object.Key;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

export async function objectExists(
  client: S3Client,
  bucket: string,
  key: string,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal });
    return true;
  } catch (err) {
    if (
      err instanceof NotFound ||
      (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
    )
      return false;
    throw err;
  }
}

/**
 * The keys a read covers, relative to the connector's prefix: a glob's matches, an object's key, or every data
 * object under a prefix (`path/`, or `path` when no object has exactly that key).
 */
export async function keysToRead(
  client: S3Client,
  cfg: S3Config,
  path: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const keys: string[] = [];
  if (isGlob(path)) {
    const matches = globMatcher(path);
    for await (const key of listKeys(client, cfg.bucket, cfg.prefix + globBase(path), signal)) {
      if (matches(key.slice(cfg.prefix.length))) keys.push(key);
    }
    return keys;
  }
  const full = cfg.prefix + path;
  if (path !== '' && !path.endsWith('/') && (await objectExists(client, cfg.bucket, full, signal))) return [full];
  const folder = full === '' || full.endsWith('/') ? full : `${full}/`;
  for await (const key of listKeys(client, cfg.bucket, folder, signal)) {
    if (formatOfName(key) || cfg.format) keys.push(key);
  }
  if (keys.length === 0) {
    throw new ConnectorError(
      `no object "${full}" and no data objects under "${folder}" in bucket "${cfg.bucket}"`,
      'config_error',
    );
  }
  return keys;
}

/** Reads one object whole as a stream, or by ranges for Parquet's footer-first access. */
export function objectSource(client: S3Client, bucket: string, key: string, signal?: AbortSignal): FileSource {
  return {
    async stream() {
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal });
      return answer.Body as Readable;
    },
    async randomAccess(): Promise<AsyncBuffer> {
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal });
      const byteLength = head.ContentLength ?? 0;
      return cachedAsyncBuffer({
        byteLength,
        async slice(start: number, end?: number) {
          const last = (end ?? byteLength) - 1;
          if (last < start) return new ArrayBuffer(0);
          const answer = await client.send(
            new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${start}-${last}` }),
            { abortSignal: signal },
          );
          const bytes = await answer.Body!.transformToByteArray();
          return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
        },
      });
    },
  };
}
