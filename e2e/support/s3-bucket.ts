/**
 * An S3-compatible server (s3rver) of the suite's own, on a free port with its own folder and one bucket, and a
 * client to put test objects; `config()` is an s3 connector config for it (the stack must allow private networks).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export interface S3Bucket {
  endpoint: string;
  bucket: string;
  config(overrides?: Record<string, unknown>): Record<string, unknown>;
  put(key: string, body: string | Uint8Array): Promise<void>;
  close(): Promise<void>;
}

// s3rver's built-in account.
const KEY = 'S3RVER';

export async function startS3Bucket(bucket = 'conduit-e2e'): Promise<S3Bucket> {
  const directory = await mkdtemp(join(tmpdir(), 'conduit-e2e-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const address = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${address.port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: KEY, secretAccessKey: KEY },
  });
  return {
    endpoint,
    bucket,
    config: (overrides = {}) => ({
      endpoint,
      region: 'us-east-1',
      bucket,
      access_key_id: KEY,
      secret_access_key: KEY,
      force_path_style: true,
      ...overrides,
    }),
    put: async (key, body) => {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
