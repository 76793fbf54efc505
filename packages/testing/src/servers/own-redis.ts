/**
 * A redis-server of the test's own, in a temporary folder on a free port, which the test may kill, pause and start
 * again without touching the machine's Redis (fault tests), or hand to a connector (the platform's Redis is refused
 * to every connector).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { waitFor } from '../waits/wait-for.js';
import { freePort } from './free-port.js';

export interface OwnRedisOptions {
  /** Append-only file on, as docs/reliability asks of an operator, so that a restart keeps streams and queues. Default false. */
  appendOnly?: boolean;
}

export interface OwnRedis {
  host: string;
  port: number;
  url: string;
  /** A client for the test's own checks (MONITOR, reads); disconnected by destroy(). */
  client(): Redis;
  /** Kills the server (SIGKILL): clients meet a connection that goes away and is refused. */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder (from its append-only file when on). */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers, a hung Redis. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Kills it, disconnects its clients and removes its folder. */
  destroy(): Promise<void>;
}

export async function startOwnRedis(options: OwnRedisOptions = {}): Promise<OwnRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-test-redis-'));
  const port = await freePort();
  const host = '127.0.0.1';
  const url = `redis://${host}:${port}`;
  const clients: Redis[] = [];
  let child: ChildProcess | undefined;

  const start = async () => {
    const args = ['--port', String(port), '--bind', host, '--dir', dir, '--save', ''];
    const started = spawn('redis-server', [...args, '--appendonly', options.appendOnly ? 'yes' : 'no'], {
      stdio: 'ignore',
    });
    child = started;
    await waitFor(
      async () => {
        if (started.exitCode !== null) throw new Error(`redis-server exited with ${started.exitCode}`);
        const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          return (await probe.ping()) === 'PONG';
        } finally {
          probe.disconnect();
        }
      },
      { what: `redis-server on port ${port}`, timeoutMs: 20_000 },
    );
  };
  const kill = async () => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    host,
    port,
    url,
    client() {
      const c = new Redis({ host, port, lazyConnect: true, maxRetriesPerRequest: 1 });
      clients.push(c);
      return c;
    },
    kill,
    start,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async destroy() {
      for (const c of clients) c.disconnect();
      child?.kill('SIGCONT');
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
