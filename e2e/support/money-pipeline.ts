/**
 * The pipelines the typed-data suites of each database share: the type matrix (`matrix` through `select *` into an
 * existing and a created table), and issue 15's arithmetic check (a `payments` table through `amount * 2 where
 * amount > 0` and a sums transform into two sinks) with the exact text of a sum of cents.
 */

/** A DAG node as the suites build them; the connector is the suite's. */
type Node = Record<string, unknown>;

export interface MoneyNodes {
  source: (id: string, table: string) => Node;
  transform: (id: string, sql: string) => Node;
  sink: (id: string, table: string, extra?: Record<string, unknown>) => Node;
}

/**
 * matrix -> `select *` (node `everything`, or `select` when a leg must rebuild a type it cannot carry) ->
 * `matrix_existing` and `matrix_created` (created with `createdSink` too).
 */
export function matrixDag(
  { source, transform, sink }: MoneyNodes,
  createdSink: Record<string, unknown> = {},
  select = 'select * from extract',
) {
  return {
    nodes: [
      source('extract', 'matrix'),
      transform('everything', select),
      sink('into_existing', 'matrix_existing'),
      sink('into_created', 'matrix_created', createdSink),
    ],
    edges: [
      { from: 'extract', to: 'everything' },
      { from: 'everything', to: 'into_existing' },
      { from: 'everything', to: 'into_created' },
    ],
  };
}

/** payments -> doubled (`payments_doubled`) and totals (`payments_totals`). */
export function moneyDag({ source, transform, sink }: MoneyNodes): {
  nodes: Node[];
  edges: Array<{ from: string; to: string }>;
} {
  return {
    nodes: [
      source('src', 'payments'),
      transform('doubled', 'select id, amount * 2 as doubled from src where amount > 0'),
      transform('totals', 'select sum(amount) as total, sum(amount * 3) as tripled, count(*) as n from src'),
      sink('save_doubled', 'payments_doubled'),
      sink('save_totals', 'payments_totals'),
    ],
    edges: [
      { from: 'src', to: 'doubled' },
      { from: 'src', to: 'totals' },
      { from: 'doubled', to: 'save_doubled' },
      { from: 'totals', to: 'save_totals' },
    ],
  };
}

/** The SQL the doubled rows must equal (`except` both ways). */
export const EXPECTED_DOUBLED = 'select id, amount * 2 from payments where amount > 0';

/** `cents` as a decimal text with two places, e.g. -1234n -> "-12.34". */
export function asMoney(cents: bigint): string {
  const abs = cents < 0n ? -cents : cents;
  return `${cents < 0n ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}
