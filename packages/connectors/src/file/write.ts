/**
 * Writes rows as one new file. A `path` with a data extension names the file: `overwrite` replaces it, `append`
 * writes it when absent and otherwise a new part file beside it (`<stem>-part-<time>-<id>.<ext>`). Any other path is
 * a folder: `append` adds a part file, `overwrite` also removes the folder's earlier files of that format. The file
 * is written under a hidden temporary name and renamed into place, so readers never see half a file.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ConnectorError } from '../connector-error.js';
import { resolveUnderDataRoot, tenantDataRoot } from '../data-root.js';
import { encodeRows } from '../formats/encode.js';
import { chooseFormat, extensionOf, formatOfName, partFileName, type FileFormat } from '../formats/file-format.js';
import { fileSystemError } from '../path-messages.js';
import type { Row, WriteRequest } from '../types.js';
import type { FileConfig } from './file.config.js';
import { nodePathOf } from './read.js';
import { removeFile } from '../remove-file.js';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Where a write goes: the file's format, its folder and final path, and whether the node's path named the file. */
export interface FileTarget {
  /** The tenant's folder, which messages name paths relative to. */
  root: string;
  format: FileFormat;
  folder: string;
  finalPath: string;
  namesFile: boolean;
}

export async function fileTarget(cfg: FileConfig, req: WriteRequest): Promise<FileTarget> {
  if (req.mode === 'upsert')
    throw new ConnectorError('the file connector cannot upsert: use append or overwrite', 'config_error');
  const path = nodePathOf(req);
  const root = tenantDataRoot(req.tenantId);
  const target = await resolveUnderDataRoot(root, 'path', cfg.path, path);
  const namesFile = formatOfName(path) !== undefined && !path.endsWith('/');
  const format = chooseFormat(req['format'], cfg.format ?? 'jsonl', namesFile ? path : '');
  const folder = namesFile ? dirname(target) : target;
  const finalPath = namesFile
    ? req.mode === 'append' && (await exists(target))
      ? join(folder, partFileName(format, `${stemOf(basename(target))}-part`))
      : target
    : join(folder, partFileName(format));
  return { root, format, folder, finalPath, namesFile };
}

/**
 * `err` of a write to `target` as the tenant may see it: a file system error (whose message names absolute paths)
 * becomes a ConnectorError naming the target relative to the tenant's folder.
 */
export const writeError = (target: FileTarget, err: unknown): Promise<unknown> =>
  fileSystemError(err, target.root, target.namesFile ? target.finalPath : target.folder, 'cannot write');

/** A write of no rows leaves no file, except an overwrite of a named file (which then holds no rows). */
export const writesNothingWhenEmpty = (target: FileTarget, mode: WriteRequest['mode']): boolean =>
  !(target.namesFile && mode === 'overwrite');

/** A hidden name in the target's folder for the file being written (readers skip hidden files). */
export const temporaryPathOf = (target: FileTarget): string =>
  join(target.folder, `.${basename(target.finalPath)}.${randomUUID()}.tmp`);

/** Renames the finished `temporary` file into place; a folder's overwrite first removes the folder's earlier files. */
export async function publishFile(target: FileTarget, mode: WriteRequest['mode'], temporary: string): Promise<void> {
  if (!target.namesFile && mode === 'overwrite') await removeDataFiles(target.folder, target.format);
  await rename(temporary, target.finalPath);
}

export async function writeFile(
  cfg: FileConfig,
  req: WriteRequest,
  batches: AsyncIterable<Row[]>,
): Promise<{ rows_written: number }> {
  const target = await fileTarget(cfg, req);
  const temporary = temporaryPathOf(target);
  let rows = 0;
  try {
    await mkdir(target.folder, { recursive: true });
    const chunks = encodeRows(target.format, batches, { csvDelimiter: cfg.csv_delimiter, onRows: (n) => (rows += n) });
    await pipeline(Readable.from(chunks), createWriteStream(temporary), req.signal ? { signal: req.signal } : {});
    req.signal?.throwIfAborted();
    if (rows === 0 && writesNothingWhenEmpty(target, req.mode)) {
      await removeFile(temporary);
      return { rows_written: 0 };
    }
    await publishFile(target, req.mode, temporary);
    return { rows_written: rows };
  } catch (err) {
    // The cleanup's own failure (ENOTDIR when the folder could not be made) must not hide the write's.
    await removeFile(temporary).catch(() => undefined);
    throw req.signal?.aborted ? req.signal.reason : await writeError(target, err);
  }
}

function stemOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? name : name.slice(0, dot);
}

/** The folder's own files of this format (not sub-folders, not hidden files). */
async function removeDataFiles(folder: string, format: FileFormat): Promise<void> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (entry.isFile() && !entry.name.startsWith('.') && entry.name.endsWith(extensionOf(format))) {
      await rm(join(folder, entry.name));
    }
  }
}
