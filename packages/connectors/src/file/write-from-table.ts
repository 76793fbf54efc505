/**
 * The typed file sink: the run's DuckDB writes the input table into a file of the run's scratch folder with its own
 * `COPY ... TO` (formats/export-table.ts keeps the types), and the finished file is moved into the tenant's folder
 * under the row sink's rules (write.ts: path resolution under the data root, modes, file naming): first to a hidden
 * name beside its final place (a rename, or a copy when the scratch folder is on another file system), then renamed
 * into place, so a reader never sees half a file. The scratch file is always removed.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { exportTable } from '../formats/export-table.js';
import { extensionOf } from '../formats/file-format.js';
import type { DuckDBTable, WriteRequest } from '../types.js';
import type { FileConfig } from './file.config.js';
import { fileTarget, publishFile, temporaryPathOf, writeError, writesNothingWhenEmpty } from './write.js';
import { removeFile } from '../remove-file.js';

export async function writeFileFromTable(
  cfg: FileConfig,
  req: WriteRequest,
  source: DuckDBTable,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const target = await fileTarget(cfg, req);
  const scratch = join(source.scratchDir, `file-sink-${randomUUID()}${extensionOf(target.format)}`);
  let temporary: string | undefined;
  try {
    const rows = await exportTable(source, target.format, scratch, { csvDelimiter: cfg.csv_delimiter });
    signal?.throwIfAborted();
    if (rows === 0 && writesNothingWhenEmpty(target, req.mode)) return { rows_written: 0 };
    await mkdir(target.folder, { recursive: true });
    temporary = temporaryPathOf(target);
    await moveFile(scratch, temporary);
    signal?.throwIfAborted();
    await publishFile(target, req.mode, temporary);
    return { rows_written: rows };
  } catch (err) {
    // The cleanup's own failure must not hide the write's.
    if (temporary !== undefined) await removeFile(temporary).catch(() => undefined);
    throw signal?.aborted ? signal.reason : await writeError(target, err);
  } finally {
    await removeFile(scratch);
  }
}

/** A rename where both are on one file system, else a copy (the caller removes the original). */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(from, to);
  }
}
