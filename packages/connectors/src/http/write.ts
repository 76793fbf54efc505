/** POSTs rows as JSON arrays, `batch_size` rows per request (default 500), to `path` under base_url. */
import { ConnectorError } from '../connector-error.js';
import { jsonReplacer } from '../messaging/message-json.js';
import type { Row, WriteRequest } from '../types.js';
import { resolveUrl } from './http.config.js';
import type { HttpSession } from './http-session.js';

const DEFAULT_POST_ROWS = 500;

export function encodeRows(rows: readonly Row[]): string {
  return JSON.stringify(rows, jsonReplacer);
}

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
  let pending: Row[] = [];
  const flush = async (rows: Row[]) => {
    await session.request('POST', url, encodeRows(rows), req.signal, { statusOnly: true });
    written += rows.length;
  };
  for await (const batch of batches) {
    req.signal?.throwIfAborted();
    pending.push(...batch);
    while (pending.length >= size) {
      await flush(pending.slice(0, size));
      pending = pending.slice(size);
    }
  }
  if (pending.length > 0) await flush(pending);
  return { rows_written: written };
}
