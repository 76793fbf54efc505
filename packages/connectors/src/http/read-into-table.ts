/**
 * A typed read of the http connector: the records it extracts (read.ts: records_path, paging, max_pages) are written
 * page by page as JSON lines to a file of the run's scratch folder, and DuckDB's JSON reader gives them their types
 * (its sniffer over every record, with the node's `columns` overrides), instead of guessing from JS values.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { stringify as stringifyLossless } from 'lossless-json';
import { ConnectorError } from '../connector-error.js';
import { columnOverridesOf } from '../formats/column-overrides.js';
import { withScratchFolder } from '../formats/scratch-folder.js';
import { loadFilesIntoTable } from '../formats/typed-file-read.js';
import type { DuckDBTable, ReadRequest, TypedReadResult } from '../types.js';
import type { HttpSession } from './http-session.js';
import { readRecords } from './read.js';

/**
 * The most distinct fields the records may have, each a column of the table: DuckDB's JSON reader takes records of
 * 200 fields or more as one MAP, which a read of records refuses (its map_inference_threshold, measured), and over one
 * record of 55,000 fields (a 5 MB page: an attacker's probe) it took minutes to find that out, past its interrupts,
 * which made the executor restart. Refused here, before the file is read, with a message that says what to do.
 */
export const HTTP_READ_MAX_COLUMNS = 199;

/** Adds the fields of `page`'s records to `columns`, refusing the read past HTTP_READ_MAX_COLUMNS. */
function countColumns(columns: Set<string>, page: readonly object[]): void {
  for (const record of page) {
    for (const field of Object.keys(record)) {
      if (columns.has(field)) continue;
      columns.add(field);
      if (columns.size > HTTP_READ_MAX_COLUMNS) {
        throw new ConnectorError(
          `the records have more than ${HTTP_READ_MAX_COLUMNS} distinct fields, each a column: choose fewer (the API's own field selection, or a records_path deeper in its answer)`,
          'config_error',
          { code: 'too_many_columns' },
        );
      }
    }
  }
}

export async function readRecordsIntoTable(
  session: HttpSession,
  req: ReadRequest,
  target: DuckDBTable,
): Promise<TypedReadResult> {
  const overrides = columnOverridesOf(req);
  return withScratchFolder(target, 'http-read', async (folder, allowance) => {
    const path = join(folder, 'records.jsonl');
    const out = createWriteStream(path, { flags: 'wx' });
    let records = 0;
    const columns = new Set<string>();
    try {
      // Numbers past what a JS number holds exactly (an id past 2^53) are written as the server sent them.
      for await (const page of readRecords(session, req, {
        exactNumbers: true,
        pageMaxBytes: target.buffers?.jsonPageMaxBytes,
      })) {
        countColumns(columns, page);
        // One page in memory at a time, as the row read holds it; the file takes it before the next request, unless
        // it would take the run's reads past their scratch limit (max_pages caps pages, not bytes).
        const lines = `${page.map((record) => stringifyLossless(record)).join('\n')}\n`;
        allowance.take(Buffer.byteLength(lines));
        if (!out.write(lines)) await once(out, 'drain');
        records += page.length;
      }
    } finally {
      out.end();
      await finished(out);
    }
    const files =
      records === 0 ? [] : [{ path, format: 'jsonl' as const, name: session.describe(new URL(session.cfg.base_url)) }];
    return loadFilesIntoTable(target, files, { overrides });
  });
}
