/**
 * Each executor process keeps its runs' spill folders in a folder of its own under EXECUTOR_DATA_DIR, named after its
 * host and process id, so replicas that share a disk never touch each other's runs. A process killed with -9 cannot
 * remove its folder: every executor at start removes the folders that dead processes of its host left behind (and
 * empties its own name, which a container restarted as the same pid would otherwise inherit). Folders of other hosts
 * are left to their own executors.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'executor-';

/** `executor-<host>-<pid>`; the host is made safe for a file name. */
export function replicaFolderName(host: string, pid: number): string {
  return `${PREFIX}${host.replace(/[^\w.-]/g, '_')}-${pid}`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface ReplicaFolder {
  /** Where this process's runs keep their spill folders. */
  path: string;
  /** Folders of dead executors of this host that were removed. */
  removed: string[];
}

/** Creates this process's (empty) folder under `dataDir` and removes those of this host's dead executors. */
export async function claimReplicaFolder(
  dataDir: string,
  host = hostname(),
  pid = process.pid,
): Promise<ReplicaFolder> {
  await mkdir(dataDir, { recursive: true });
  const own = replicaFolderName(host, pid);
  const ofThisHost = `${PREFIX}${host.replace(/[^\w.-]/g, '_')}-`;
  const removed: string[] = [];
  for (const entry of await readdir(dataDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(ofThisHost)) continue;
    const other = entry.name.slice(ofThisHost.length);
    if (!/^\d+$/.test(other)) continue;
    if (entry.name !== own && isAlive(Number(other))) continue;
    await rm(join(dataDir, entry.name), { recursive: true, force: true });
    if (entry.name !== own) removed.push(entry.name);
  }
  const path = join(dataDir, own);
  await mkdir(path);
  return { path, removed };
}
