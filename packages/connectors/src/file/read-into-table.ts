/**
 * A typed read of the file connector: the files a read covers (one file, a folder's data files or a glob's matches,
 * in name order, under the tenant's folder: file-listing.ts) are brought into the run's scratch folder (hard links
 * where possible, never through JS memory) and read there by DuckDB's own readers into the node's table.
 */
import { join } from 'node:path';
import { displayPath, tenantDataRoot } from '../data-root.js';
import { columnOverridesOf } from '../formats/column-overrides.js';
import { chooseFormat, extensionOf } from '../formats/file-format.js';
import { bringLocalFile, withScratchFolder } from '../formats/scratch-folder.js';
import { fileSystemError } from '../path-messages.js';
import { loadFilesIntoTable, type ScratchDataFile } from '../formats/typed-file-read.js';
import type { DuckDBTable, ReadRequest, TypedReadResult } from '../types.js';
import type { FileConfig } from './file.config.js';
import { listFiles } from './file-listing.js';
import { nodePathOf } from './read.js';

export async function readFilesIntoTable(
  cfg: FileConfig,
  req: ReadRequest,
  target: DuckDBTable,
): Promise<TypedReadResult> {
  const overrides = columnOverridesOf(req);
  const root = tenantDataRoot(req.tenantId);
  const found = await listFiles(
    root,
    cfg.path,
    nodePathOf(req),
    req['format'] === undefined && cfg.format === undefined,
  );
  return withScratchFolder(target, 'file-read', async (folder, allowance) => {
    const files: ScratchDataFile[] = [];
    for (const [index, file] of found.entries()) {
      req.signal?.throwIfAborted();
      const format = chooseFormat(req['format'], cfg.format, file.path);
      // Numbered names keep the read's order; the extension is the format's, whatever the file was called.
      const path = join(folder, `${String(index).padStart(6, '0')}${extensionOf(format)}`);
      await bringLocalFile(file.real, path, allowance).catch(async (err: unknown) => {
        throw await fileSystemError(err, root, file.path, 'cannot read');
      });
      files.push({ path, format, name: displayPath(root, file.path) });
    }
    return loadFilesIntoTable(target, files, { csvDelimiter: cfg.csv_delimiter, overrides });
  });
}
