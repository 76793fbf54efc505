/**
 * A redis-server of the suite's own, on a free port with its files in a temporary folder, for redis connectors:
 * the platform's Redis is refused to every connector (issue 14). Killed, and its folder removed, by stop().
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, waitFor } from '@conduit/local-stack';

export interface OwnRedis {
  host: string;
  port: number;
  /** A client for the suite's own checks (MONITOR, reads); closed by stop(). */
  client(): Redis;
  stop(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-e2e-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const clients: Redis[] = [];
  const client = () => {
    const c = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
    clients.push(c);
    return c;
  };
  await waitFor(`redis-server on port ${port}`, async () => {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const probe = new Redis({
      host: '127.0.0.1',
      port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } finally {
      probe.disconnect();
    }
  });
  return {
    host: '127.0.0.1',
    port,
    client,
    async stop() {
      for (const c of clients) c.disconnect();
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
