// The PostgreSQL server `npm start` keeps the platform's database on: a server of its own in .conduit/postgres
// (initdb once, started with the stack, stopped with it), so that the machine's own PostgreSQL stays free for the
// data connectors read and write. Connectors may never reach the platform's own server, any database of it
// (docs/security.md); on one server, a developer's postgres connectors would all be refused. A DATABASE_URL given in
// the environment or .conduit/local.env is used as it is instead.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, chownSync } from 'node:fs';
import { resolve } from 'node:path';
import { ROOT } from './local-env.mjs';

const DIR = resolve(ROOT, '.conduit/postgres');
const DATA = resolve(DIR, 'data');

/** PostgreSQL refuses to run as root: as root, its tools run as the `postgres` user, which owns the folder. */
function asPostgres(command, args) {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function pgTool(command, args) {
  const [file, argv] = asPostgres(command, args);
  const done = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
  if (done.status !== 0)
    throw new Error(`${command} failed: ${(done.stderr || done.stdout || String(done.error)).trim()}`);
}

/** `pg_ctl status`: 0 while the server of DATA runs. */
function isRunning() {
  const [file, argv] = asPostgres('pg_ctl', ['-D', DATA, 'status']);
  return spawnSync(file, argv, { stdio: 'ignore' }).status === 0;
}

function hasTool(command) {
  return spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Starts the platform's own server (made at the first start) on `port` and answers its DATABASE_URL, or undefined
 * when initdb and pg_ctl are not installed (the machine's server is used then, and the launcher says what it means).
 */
export function startLocalPostgres(port) {
  if (!hasTool('initdb') || !hasTool('pg_ctl')) return undefined;
  if (!existsSync(resolve(DATA, 'PG_VERSION'))) {
    mkdirSync(DIR, { recursive: true, mode: 0o700 });
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(DIR, uid, gid);
    }
    pgTool('initdb', ['-D', DATA, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  }
  // Still running after a launcher that could not stop it (killed): used as it is.
  if (!isRunning()) {
    const options = `-p ${port} -k ${DIR} -c listen_addresses=127.0.0.1`;
    pgTool('pg_ctl', ['-D', DATA, '-o', options, '-l', resolve(DIR, 'log'), '-w', 'start']);
  }
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}

/** Stops it (fast: sessions end, nothing is lost). */
export function stopLocalPostgres() {
  try {
    pgTool('pg_ctl', ['-D', DATA, '-m', 'fast', '-w', 'stop']);
  } catch {
    // Not running.
  }
}
