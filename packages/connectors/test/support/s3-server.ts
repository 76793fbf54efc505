/** An S3-compatible server (s3rver) on a free port with its own temporary folder, for one test suite. */
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface S3Sandbox {
  endpoint: string;
  bucket: string;
  /** A connector config for the sandbox bucket. */
  config: Record<string, unknown>;
  /** Method and URL of every request the server received, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** s3rver's built-in account. */
export const S3RVER_KEY = 'S3RVER';

export async function startS3Server(bucket = 'conduit-test'): Promise<S3Sandbox> {
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
  return {
    endpoint,
    requests,
    bucket,
    config: {
      endpoint,
      region: 'us-east-1',
      bucket,
      access_key_id: S3RVER_KEY,
      secret_access_key: S3RVER_KEY,
      force_path_style: true,
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
