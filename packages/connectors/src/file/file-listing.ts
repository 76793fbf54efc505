/** Which files a read covers: one file, every data file under a folder, or the files a glob matches. */
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ConnectorError } from '../connector-error.js';
import { assertUnderDataRoot, displayPath, resolveUnderDataRoot } from '../data-root.js';
import { formatOfName, globBase, globMatcher, isGlob } from '../formats/file-format.js';

async function* walk(folder: string): AsyncGenerator<string> {
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    // Hidden files include our own in-progress writes.
    if (entry.name.startsWith('.')) continue;
    const full = join(folder, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile() || entry.isSymbolicLink()) yield full;
  }
}

/** Absolute paths in name order; `folder` is relative to the tenant's folder `root`, `pattern` to `folder`. */
export async function listFiles(root: string, folder: string, pattern: string, requireKnownExtension: boolean): Promise<string[]> {
  const files: string[] = [];
  if (isGlob(pattern)) {
    const base = await resolveUnderDataRoot(root, 'path', folder, globBase(pattern));
    const matches = globMatcher(pattern);
    const connectorRoot = await resolveUnderDataRoot(root, 'path', folder);
    for await (const file of walkIfExists(base)) {
      if (matches(relative(connectorRoot, file).split(sep).join('/'))) files.push(file);
    }
  } else {
    const target = await resolveUnderDataRoot(root, 'path', folder, pattern);
    const info = await stat(target).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw new ConnectorError(`"${displayPath(root, target)}" does not exist`, 'config_error');
      throw err;
    });
    if (info.isDirectory()) {
      for await (const file of walk(target)) if (!requireKnownExtension || formatOfName(file)) files.push(file);
    } else files.push(target);
  }
  for (const file of files) await assertUnderDataRoot(root, `"${displayPath(root, file)}"`, file);
  return files;
}

async function* walkIfExists(folder: string): AsyncGenerator<string> {
  try {
    await stat(folder);
  } catch {
    return;
  }
  yield* walk(folder);
}
