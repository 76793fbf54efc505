/** A decision's output rows are its input rows: a view named after the node over its single input, or all inputs unioned by name. */
import { quoteIdent } from '../../data/sql-names.js';

export function decisionViewSql(id: string, inputs: readonly string[]): string {
  const body =
    inputs.length === 0
      ? 'select null as "_empty" where false'
      : inputs.map((i) => `select * from ${quoteIdent(i)}`).join(' union all by name ');
  return `create or replace view ${quoteIdent(id)} as ${body}`;
}
