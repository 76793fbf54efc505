/**
 * POSTs rows as JSON arrays, `batch_size` rows per request (default 500) and at most MAX_POST_BYTES of them (a row
 * larger goes alone), to `path` under base_url.
 */
import { ConnectorError } from '../connector-error.js';
import { jsonReplacer } from '../messaging/message-json.js';
import type { Row, WriteRequest } from '../types.js';
import { resolveUrl } from './http.config.js';
import type { HttpSession } from './http-session.js';

const DEFAULT_POST_ROWS = 500;
/**
 * What one request's rows may take as JSON: rows are held here until sent, in the heap every run on the executor
 * shares, and a row's size is the tenant's (500 rows of 8 MiB would be 4 GB).
 */
export const MAX_POST_BYTES = 8 * 1024 * 1024;

const encodeRow = (row: Row): string => JSON.stringify(row, jsonReplacer);

function postRows(req: WriteRequest): number {
  const size = req['batch_size'] ?? DEFAULT_POST_ROWS;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) {
    throw new ConnectorError('batch_size must be a positive integer', 'config_error');
  }
  return size;
}

export async function postBatches(
  session: HttpSession,
  req: WriteRequest,
  batches: AsyncIterable<Row[]>,
): Promise<{ rows_written: number }> {
  const path = req['path'] ?? req.table;
  if (typeof path !== 'string' || path === '') throw new ConnectorError('an http write needs a path', 'config_error');
  const size = postRows(req);
  const url = resolveUrl(session.cfg, path);
  let written = 0;
  // Each row encoded as it comes (JSON.stringify of the array joins its elements' JSON with commas, the same text).
  let pending: string[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    const rows = pending;
    pending = [];
    pendingBytes = 0;
    await session.request('POST', url, `[${rows.join(',')}]`, req.signal, { statusOnly: true });
    written += rows.length;
  };
  for await (const batch of batches) {
    req.signal?.throwIfAborted();
    for (const row of batch) {
      const text = encodeRow(row);
      if (pending.length > 0 && pendingBytes + text.length > MAX_POST_BYTES) await flush();
      pending.push(text);
      pendingBytes += text.length + 1;
      if (pending.length >= size) await flush();
    }
  }
  if (pending.length > 0) await flush();
  return { rows_written: written };
}
