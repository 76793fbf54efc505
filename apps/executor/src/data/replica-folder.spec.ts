import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimReplicaFolder, replicaFolderName } from './replica-folder.js';

let dataDir: string;
let live: ChildProcess;

/** The pid of a process that has exited: its folder is a dead executor's. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

async function folderWithSpill(name: string): Promise<void> {
  await mkdir(join(dataDir, name, 'run_x-0000'), { recursive: true });
  await writeFile(join(dataDir, name, 'run_x-0000', 'spill.tmp'), 'rows');
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'conduit-replica-'));
  live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
});

afterEach(async () => {
  live.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

describe('claimReplicaFolder', () => {
  it("removes the folders of this host's dead executors, keeps live ones and other hosts', and starts its own empty", async () => {
    const dead = replicaFolderName('host-a', await deadPid());
    const alive = replicaFolderName('host-a', live.pid!);
    const otherHost = replicaFolderName('host-b', await deadPid());
    const lookalike = 'executor-host-a-1-not-a-pid';
    const own = replicaFolderName('host-a', process.pid);
    for (const name of [dead, alive, otherHost, lookalike, own]) await folderWithSpill(name);

    const claimed = await claimReplicaFolder(dataDir, 'host-a', process.pid);

    expect(claimed).toEqual({ path: join(dataDir, own), removed: [dead] });
    expect((await readdir(dataDir)).sort()).toEqual([alive, lookalike, otherHost, own].sort());
    // Its own name held a previous life's spill (a container restarted as the same pid): emptied.
    expect(await readdir(join(dataDir, own))).toEqual([]);
  });

  it('creates the data folder when it does not exist yet', async () => {
    const claimed = await claimReplicaFolder(join(dataDir, 'new', 'deeper'), 'host-a', 4242);
    expect(await readdir(claimed.path)).toEqual([]);
    expect(claimed.removed).toEqual([]);
  });
});
