// An import cannot name an ambient declaration file; the reference, kept in the emitted .d.ts by `preserve`, hands
// the s3rver declarations to every program that imports the kit.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="../../types/s3rver.d.ts" preserve="true" />
/**
 * An S3-compatible server (s3rver) of the suite's own, on a free port with its own folder and one bucket, with a
 * client for the test's own puts and checks: the connectors' object-store tests and the e2e S3 suites.
 */
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** An s3 connector config for the bucket; `overrides` replace or add fields. */
  config(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** Method and URL of every request the server received, in order. */
  requests: string[];
  /** The part uploads of a multipart upload to `key` (PUT requests with an uploadId), as the server received them. */
  uploadedParts(key: string): string[];
  /** A client of the server's account, path-style. */
  client: S3Client;
  put(key: string, body: string | Uint8Array): Promise<void>;
  /** The object's body as text. */
  text(key: string): Promise<string>;
  close(): Promise<void>;
}

/** s3rver's built-in account (it does not check SigV4 signatures, only that the key id is known). */
export const S3RVER_KEY = 'S3RVER';

export async function startS3Server(bucket = 'conduit-test'): Promise<S3Server> {
  // Loaded here, not at the kit's import: only the suites that start a server pay for s3rver and the AWS SDK.
  const [{ default: S3rver }, s3] = await Promise.all([import('s3rver'), import('@aws-sdk/client-s3')]);
  const directory = await mkdtemp(join(tmpdir(), 'conduit-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const address = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${address.port}`;
  const requests: string[] = [];
  server.httpServer?.on('request', (req: IncomingMessage) => requests.push(`${req.method ?? ''} ${req.url ?? ''}`));
  const client = new s3.S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY },
  });
  return {
    endpoint,
    bucket,
    requests,
    client,
    uploadedParts: (key) => requests.filter((r) => r.startsWith(`PUT /${bucket}/${key}?`) && /[?&]uploadId=/.test(r)),
    config: (overrides = {}) => ({
      endpoint,
      region: 'us-east-1',
      bucket,
      access_key_id: S3RVER_KEY,
      secret_access_key: S3RVER_KEY,
      force_path_style: true,
      ...overrides,
    }),
    put: async (key, body) => {
      await client.send(new s3.PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
    text: async (key) =>
      (await client.send(new s3.GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToString(),
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
