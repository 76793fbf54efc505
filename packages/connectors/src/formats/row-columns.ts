/** Rows of one write must keep the columns of its first batch. */
import { ConnectorError } from '../connector-error.js';
import type { Row } from '../types.js';

export function checkColumns(rows: readonly Row[], known: ReadonlySet<string>): void {
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!known.has(key))
        throw new ConnectorError(`row has column "${key}" that the first batch did not have`, 'config_error');
    }
  }
}
