/**
 * A folder of its own inside the run's scratch folder (the one place the run's DuckDB may read files) for one typed
 * read: the files a read brings there are removed with it when the read ends, whether it succeeded or failed, and
 * count against the run's scratch limit (scratch-limit.ts) until then.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, constants, link, mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBTable } from '../types.js';
import { ScratchAllowance } from './scratch-limit.js';

export async function withScratchFolder<T>(
  target: Pick<DuckDBTable, 'scratchDir' | 'buffers'>,
  purpose: string,
  work: (folder: string, allowance: ScratchAllowance) => Promise<T>,
): Promise<T> {
  const folder = join(target.scratchDir, `${purpose}-${randomUUID()}`);
  const allowance = new ScratchAllowance(target.scratchDir, target.buffers?.scratchLimitBytes);
  await mkdir(folder);
  try {
    return await work(folder, allowance);
  } finally {
    await rm(folder, { recursive: true, force: true });
    allowance.release();
  }
}

/**
 * A local file's content at `destination` without passing through JS memory: a hard link when both are on one file
 * system (and the kernel allows it), else a copy made by the kernel (a reflink where the file system has them).
 * `real` is the file's real path, already checked to stay in the tenant's folder: exactly that path is brought, never
 * resolved again (a link changed since the check cannot redirect it). Errors are Node's, naming absolute paths: the
 * caller words them for the tenant.
 */
export async function bringLocalFile(real: string, destination: string, allowance: ScratchAllowance): Promise<void> {
  try {
    await link(real, destination);
  } catch (err) {
    // EXDEV: another file system; EPERM/EACCES: protected_hardlinks or a file system without links.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EACCES' && code !== 'ENOTSUP' && code !== 'EMLINK') throw err;
    // A copy takes room on the scratch volume (a link does not); a reflink may not, but counting it errs safe.
    allowance.take((await stat(real)).size);
    await copyFile(real, destination, constants.COPYFILE_FICLONE);
  }
}
