/**
 * A Node child process under a data-size limit (RLIMIT_DATA, set by `ulimit -d` before the child's Node starts), for
 * work on a tenant's SQL or file that DuckDB does not bound itself: past the limit an allocation fails in the child,
 * never in the process that serves everyone. The child gets none of the parent's environment (none of its secrets),
 * only `env`, and talks to its parent over Node's IPC channel.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { DUCKDB_ALLOCATOR_OPTIONS, withFreedAddressSpace } from './allocator-options.js';

const SHELL = '/bin/sh';
let warned = false;

/** Starts `script` in a Node child limited to `dataLimitKiB` of data; throws when the spawn itself fails. */
export function spawnLimitedNode(script: string, dataLimitKiB: number, env: Record<string, string> = {}): ChildProcess {
  const options: SpawnOptions = {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    // DuckDB's allocator hands back address space it freed, so a child whose statement failed at its limit is not
    // left there for good (allocator-options.ts).
    env: { PATH: process.env['PATH'] ?? '', [DUCKDB_ALLOCATOR_OPTIONS]: withFreedAddressSpace(undefined), ...env },
  };
  // Without a shell there is no ulimit to set: the child then runs unlimited, as the parent does, and says so once.
  if (!existsSync(SHELL)) {
    if (!warned) process.emitWarning(`${SHELL} is missing: child processes run without a data-size limit`);
    warned = true;
    return spawn(process.execPath, [script], options);
  }
  return spawn(
    SHELL,
    [
      '-c',
      'ulimit -d "$1" && exec "$2" "$3"',
      'conduit-child',
      String(Math.floor(dataLimitKiB)),
      process.execPath,
      script,
    ],
    options,
  );
}
