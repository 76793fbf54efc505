// A PostgreSQL source read with its catalog's types (readIntoTable): a transform does arithmetic and comparisons on
// them, and money sums to the cent (issue 15's example), on the real postgres driver against a throwaway schema.
import { dagNodes, linearDag } from '@conduit/testing';
import { CONNECTOR_ID, nodeOf, runDag } from './support/engine-harness.js';
import { useSuiteSchema } from './support/postgres.js';

const ROWS = 50_000;

const { source, transform, sink } = dagNodes(CONNECTOR_ID);
const dagOf = (sourceTable: string, targetTable: string) =>
  linearDag(
    source('src', { table: sourceTable }),
    transform('doubled', 'select id, amount * 2 as doubled from src where amount > 0'),
    sink('out', targetTable),
  );

const suite = useSuiteSchema(async (db) => {
  // Amounts near 10^10 with cents: a sum of 50 000 of them has 17 significant digits, more than a DOUBLE holds.
  const rows = `select g, case when g % 10 = 0 then -(g + 0.07) when g % 13 = 0 then null else round(9876543210.99 - g + (g % 100) / 100.0, 2) end,
    case when g % 3 = 0 then null else 'note ' || g end from generate_series(1, ${ROWS}) g`;
  await db.query(`create table src (id int, amount numeric(12,2), note text)`);
  await db.query(`insert into src ${rows}`);
  // The table as a new user writes it: numeric without precision.
  await db.query(`create table src_plain (id int, amount numeric, note text)`);
  await db.query(`insert into src_plain ${rows}`);
});
const { config } = suite;

async function sums(table: string, target: string): Promise<{ want: string; got: string; rows: number }> {
  const want = await suite.db.query<{ s: string }>(
    `select (sum(amount) * 2)::text as s from ${table} where amount > 0`,
  );
  const got = await suite.db.query<{ s: string; n: number }>(
    `select sum(doubled)::text as s, count(*)::int as n from ${target}`,
  );
  return { want: want.rows[0]!.s, got: got.rows[0]!.s, rows: got.rows[0]!.n };
}

describe('typed postgres source through a transform', () => {
  it.each([
    ['numeric(12,2)', 'src', 'DECIMAL(12,2)'],
    ['numeric', 'src_plain', 'DECIMAL(38,2)'],
  ])('compares and doubles a %s column exactly, summing to the cent', async (_label, sourceTable, amountType) => {
    const target = `${sourceTable}_doubled`;
    const run = await runDag(dagOf(sourceTable, target), config);
    expect(run.outcome).toMatchObject({ status: 'succeeded', error: null });
    expect(nodeOf(run, 'src')).toMatchObject({ status: 'succeeded', rows_out: ROWS });
    expect(nodeOf(run, 'src').columns).toEqual([
      { name: 'id', type: 'INTEGER', source_type: 'integer' },
      { name: 'amount', type: amountType, source_type: sourceTable === 'src' ? 'numeric(12,2)' : 'numeric' },
      { name: 'note', type: 'VARCHAR', source_type: 'text' },
    ]);
    const { want, got, rows } = await sums(sourceTable, target);
    expect(rows).toBe(
      (await suite.db.query<{ n: number }>(`select count(*)::int as n from ${sourceTable} where amount > 0`)).rows[0]!
        .n,
    );
    expect(got).toBe(want);
    // 17 significant digits: through a DOUBLE the cents would differ.
    expect(want).toMatch(/^\d{15,}\.\d\d$/);
  });
});
