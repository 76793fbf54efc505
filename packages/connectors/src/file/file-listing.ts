/** Which files a read covers: one file, every data file under a folder, or the files a glob matches. */
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { displayPath, realPathUnderDataRoot, resolveUnderDataRoot } from '../data-root.js';
import { formatOfName, globBase, globMatcher, isGlob } from '../formats/file-format.js';
import { fileSystemError } from '../path-messages.js';

/** A file a read covers. */
export interface ListedFile {
  /** As the tenant named it or the listing found it: what messages and format detection use. */
  path: string;
  /** Its real path, checked to stay under the tenant's folder: the one path to read (never resolved again). */
  real: string;
}

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

/** The files in name order; `folder` is relative to the tenant's folder `root`, `pattern` to `folder`. */
export async function listFiles(
  root: string,
  folder: string,
  pattern: string,
  requireKnownExtension: boolean,
): Promise<ListedFile[]> {
  const target = await resolveUnderDataRoot(root, 'path', folder, pattern);
  try {
    return await listUnder(root, folder, pattern, requireKnownExtension);
  } catch (err) {
    throw await fileSystemError(err, root, target);
  }
}

async function listUnder(
  root: string,
  folder: string,
  pattern: string,
  requireKnownExtension: boolean,
): Promise<ListedFile[]> {
  const found: string[] = [];
  if (isGlob(pattern)) {
    const base = await resolveUnderDataRoot(root, 'path', folder, globBase(pattern));
    const matches = globMatcher(pattern);
    const connectorRoot = await resolveUnderDataRoot(root, 'path', folder);
    for await (const file of walkIfExists(base)) {
      if (matches(relative(connectorRoot, file).split(sep).join('/'))) found.push(file);
    }
  } else {
    const target = await resolveUnderDataRoot(root, 'path', folder, pattern);
    const info = await stat(target);
    if (info.isDirectory()) {
      for await (const file of walk(target)) if (!requireKnownExtension || formatOfName(file)) found.push(file);
    } else found.push(target);
  }
  const files: ListedFile[] = [];
  for (const path of found) {
    const real = await realPathUnderDataRoot(root, `"${displayPath(root, path)}"`, path);
    // A symbolic link a listing found may name a folder: like a folder, it is not a file of the read (links to
    // folders are not followed, so a listing cannot loop).
    if (real !== path && (await stat(real)).isDirectory()) continue;
    files.push({ path, real });
  }
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
