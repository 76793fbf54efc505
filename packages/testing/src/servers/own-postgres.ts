/**
 * A PostgreSQL of the test's own (initdb, pg_ctl) in a temporary folder on a free port, which a fault test may stop
 * and start again without touching the machine's server.
 */
import { execFile, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { waitFor } from '../waits/wait-for.js';
import { freePort } from './free-port.js';

const run = promisify(execFile);

export interface OwnPostgres {
  /** URL of the `postgres` superuser's `postgres` database: startStack's pgAdminUrl. */
  adminUrl: string;
  port: number;
  /** `pg_ctl stop -m fast`: sessions are terminated, new connections refused. */
  stop(): Promise<void>;
  /** Starts it again on the same port and folder. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
  /** The same, synchronously (`pg_ctl stop -m immediate`): for a process's `exit` handler. */
  destroySync(): void;
}

/** PostgreSQL refuses to run as root: as root, its tools run as the `postgres` user, which owns the folder. */
function asPostgresUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function pgTool(command: string, args: string[]): Promise<void> {
  const [file, argv] = asPostgresUser(command, args);
  await run(file, argv, { timeout: 60_000 });
}

export interface OwnPostgresOptions {
  /**
   * Server settings given at start (`-c name=value`; values without spaces), e.g. shared_preload_libraries for a
   * bench's statement counts.
   */
  settings?: Readonly<Record<string, string>>;
  /**
   * Commits as the machine's server does (fsync on): for the platform's database of a stack whose figures a bench
   * reads. Off by default: a fault test's durability is not the point, and fsync off keeps it fast on a busy machine.
   */
  durable?: boolean;
}

export async function startOwnPostgres(options: OwnPostgresOptions = {}): Promise<OwnPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-test-pg-'));
  if (process.getuid?.() === 0) {
    const { stdout: uid } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(uid.trim()), Number(gid.trim()));
  }
  await chmod(dir, 0o700);
  const data = join(dir, 'data');
  const port = await freePort();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await pgTool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync']);

  const start = async () => {
    const settings = Object.entries(options.settings ?? {}).map(([name, value]) => ` -c ${name}=${value}`);
    const fsync = options.durable ? '' : ' -c fsync=off';
    const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${fsync}${settings.join('')}`;
    await pgTool('pg_ctl', ['-D', data, '-o', serverOptions, '-l', join(dir, 'log'), '-w', 'start']);
    await waitFor(
      async () => {
        const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 1000 });
        try {
          await client.connect();
          await client.query('SELECT 1');
          return true;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      { what: `PostgreSQL on port ${port}`, timeoutMs: 20_000 },
    );
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
    destroySync() {
      const [file, argv] = asPostgresUser('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      spawnSync(file, argv, { stdio: 'ignore', timeout: 30_000 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
