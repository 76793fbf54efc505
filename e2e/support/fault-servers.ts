/**
 * A redis-server and a PostgreSQL of a fault test's own, in temporary folders on free ports, which the test may
 * stop, kill, pause and start again without touching the machine's servers. Used by e2e/fault/.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Redis } from 'ioredis';
import { freePort, waitFor } from '@conduit/local-stack';

const run = promisify(execFile);

export interface FaultRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL): what the clients meet is a connection that goes away and is refused. */
  kill(): Promise<void>;
  /** Starts it again on the same port, from its append-only file. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers, a hung Redis. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Kills it and removes its folder. */
  destroy(): Promise<void>;
}

export async function startFaultRedis(): Promise<FaultRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-fault-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  const start = async () => {
    // AOF on, as docs/reliability asks of an operator, so a restart keeps the streams and queues.
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes'],
      {
        stdio: 'ignore',
      },
    );
    const started = child;
    await waitFor(`redis-server on port ${port}`, async () => {
      if (started.exitCode !== null) throw new Error(`redis-server exited with ${started.exitCode}`);
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } finally {
        probe.disconnect();
      }
    });
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
    url,
    port,
    kill,
    start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async destroy() {
      child?.kill('SIGCONT');
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface FaultPostgres {
  /** URL of the `postgres` superuser's `postgres` database: startStack's pgAdminUrl. */
  adminUrl: string;
  port: number;
  /** `pg_ctl stop -m fast`: sessions are terminated, new connections refused. */
  stop(): Promise<void>;
  /** Starts it again on the same port and folder. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

/** PostgreSQL refuses to run as root: as root, its tools run as the `postgres` user, which owns the folder. */
function asPostgresUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function pgTool(command: string, args: string[]): Promise<void> {
  const [file, argv] = asPostgresUser(command, args);
  await run(file, argv, { timeout: 60_000 });
}

export async function startFaultPostgres(): Promise<FaultPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-fault-pg-'));
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await chmod(dir, 0o700);
  const data = join(dir, 'data');
  const port = await freePort();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  // fsync off: the test's durability is not the point and it keeps initdb and the test fast on a busy machine.
  await pgTool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync']);

  const start = async () => {
    await pgTool('pg_ctl', [
      '-D',
      data,
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      '-l',
      join(dir, 'log'),
      '-w',
      'start',
    ]);
    await waitFor(`PostgreSQL on port ${port}`, async () => {
      const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 1000 });
      try {
        await client.connect();
        await client.query('SELECT 1');
        return true;
      } finally {
        await client.end().catch(() => undefined);
      }
    });
  };
  const stop = async () => {
    await pgTool('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  await start();
  return {
    adminUrl,
    port,
    stop,
    start,
    async destroy() {
      await stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
