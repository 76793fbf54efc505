import { unlink } from 'node:fs/promises';

/**
 * Removes a file if it is there. One `unlink`, where `rm(path, { force: true })` looks the path up first (an `lstat`,
 * another trip to libuv's threads): a typed read removes each CSV part it loaded, and again every part it made.
 */
export async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
