/**
 * Two daily CSV files, the later with a column more, beside a file that is not data: what the file and s3 typed
 * reads of a `*.csv` glob with the override { amount: 'DECIMAL(12,2)' } must make of them.
 */
import type { TestWorkspace } from './run-workspace.js';

/** By name: the glob must read them in name order, not in the order they were written (this one). */
export const DAILY_FILES: Record<string, string> = {
  '2024-01-02.csv': 'id,amount,region\n3,0.30,eu\n',
  '2024-01-01.csv': 'id,amount\n1,0.10\n2,0.20\n',
  'notes.txt': 'not data',
};

/** The override the reads take. */
export const DAILY_OVERRIDE = { amount: 'DECIMAL(12,2)' };

/** One table with the union of their columns, amount typed by the override. */
export const DAILY_COLUMNS = [
  { name: 'id', type: 'BIGINT', source_type: 'csv (sniffed)' },
  { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'csv (columns)' },
  { name: 'region', type: 'VARCHAR', source_type: 'csv (sniffed)' },
];

/** The rows of the read's `table`, in name order, and their exact sum. */
export async function expectDailyRows(ws: TestWorkspace, table: string): Promise<void> {
  expect(await ws.rows(`select id::INTEGER, amount::VARCHAR, region from ${table}`)).toEqual([
    [1, '0.10', null],
    [2, '0.20', null],
    [3, '0.30', 'eu'],
  ]);
  expect(await ws.rows(`select sum(amount)::VARCHAR from ${table}`)).toEqual([['0.60']]);
}
