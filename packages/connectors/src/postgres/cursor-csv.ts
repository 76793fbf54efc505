/**
 * COPY takes no bind parameters: a query with `params` is fetched through a cursor instead, in the caller's snapshot,
 * every value as PostgreSQL's text (never node-postgres's Date or arrays, which would cut microseconds or respell
 * literals), and encoded as the CSV COPY prints. Shared by the typed read and the CSV hand-off.
 */
import type pg from 'pg';
import { encodeCsvValue } from './copy-csv.js';
import { DEFAULT_READ_BATCH_SIZE } from './read.js';

/** Every value as PostgreSQL's text (a cursor's rows must be what COPY prints). */
const TEXT_VALUES: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };

/** `select` (bound to `params`) as CSV, a batch of rows at a time. */
export async function* cursorCsv(
  client: pg.Client,
  select: string,
  params: unknown[],
  signal: AbortSignal | undefined,
): AsyncGenerator<{ text: string; rows: number }> {
  await client.query({ text: `declare conduit_csv_read no scroll cursor for ${select}`, values: params });
  for (;;) {
    signal?.throwIfAborted();
    const { rows } = await client.query<unknown[]>({
      text: `fetch forward ${DEFAULT_READ_BATCH_SIZE} from conduit_csv_read`,
      types: TEXT_VALUES,
      // By position: two columns of one name, or one named `__proto__`, each keep their own value.
      rowMode: 'array',
    });
    if (rows.length > 0) {
      yield { text: rows.map((row) => `${row.map(encodeCsvValue).join(',')}\n`).join(''), rows: rows.length };
    }
    if (rows.length < DEFAULT_READ_BATCH_SIZE) return;
  }
}
