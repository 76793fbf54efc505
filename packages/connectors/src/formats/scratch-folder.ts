/**
 * A folder of its own inside the run's scratch folder (the one place the run's DuckDB may read files) for one typed
 * read: the files a read brings there are removed with it when the read ends, whether it succeeded or failed.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, constants, link, mkdir, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';

export async function withScratchFolder<T>(scratchDir: string, purpose: string, work: (folder: string) => Promise<T>): Promise<T> {
  const folder = join(scratchDir, `${purpose}-${randomUUID()}`);
  await mkdir(folder);
  try {
    return await work(folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * A local file's content at `destination` without passing through JS memory: a hard link when both are on one file
 * system (and the kernel allows it), else a copy made by the kernel (a reflink where the file system has them).
 * `source` may be a symbolic link (already checked to stay in the tenant's folder): its target is what is brought.
 */
export async function bringLocalFile(source: string, destination: string): Promise<void> {
  const real = await realpath(source);
  try {
    await link(real, destination);
  } catch (err) {
    // EXDEV: another file system; EPERM/EACCES: protected_hardlinks or a file system without links.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EACCES' && code !== 'ENOTSUP' && code !== 'EMLINK') throw err;
    await copyFile(real, destination, constants.COPYFILE_FICLONE);
  }
}
