/** Stream entries as rows and rows as entries: a row is one `data` field holding its JSON. */
import { decodeMessage, encodeMessage } from '../messaging/message-json.js';
import type { Row } from '../types.js';

export const DATA_FIELD = 'data';

export type StreamEntry = [id: string, fields: string[]];

/** An entry written by this connector (one `data` field) is its JSON row; any other entry is its fields as strings. */
export function entryToRow(fields: readonly string[]): Row {
  if (fields.length === 2 && fields[0] === DATA_FIELD) return decodeMessage(fields[1] ?? '');
  const row: Row = {};
  for (let i = 0; i + 1 < fields.length; i += 2) row[fields[i] as string] = fields[i + 1];
  return row;
}

export function rowToFields(row: Row): [string, string] {
  return [DATA_FIELD, encodeMessage(row).toString('utf8')];
}
