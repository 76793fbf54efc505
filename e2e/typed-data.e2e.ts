import { nodeOf, runDagToEnd, runOutcome } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';
import { EXPECTED_DOUBLED, asMoney, matrixDag, moneyDag } from './support/money-pipeline.js';
import {
  CREATED_TYPES,
  columnTypes,
  createMatrix,
  exactTexts,
  expectCopiesOfMatrix,
} from './support/pg-type-matrix.js';

// Issue 15's type matrix, end to end: a PostgreSQL table with every common type goes through a `select *` transform
// (so the source's typed read and the sink's typed write are used, with DuckDB types in between) into an existing
// table of the same types and into a table the sink creates; `except` both ways is empty. And a transform's arithmetic
// on numeric columns is exact, to the cent.
const target = useTargetStack({
  prepare: async (db) => {
    await db.query(`set timezone to 'UTC'`);
    await createMatrix(db);
    await db.query('create table payments (id int, amount numeric, note text)');
    await db.query(
      `insert into payments select i, round(((i * 37) % 10000 - 2000) / 100.0, 2), 'p' || i from generate_series(1, 2000) i`,
    );
    await db.query(`insert into payments values (2001, 0.1, 'a dime'), (2002, 0.2, 'two dimes')`);
  },
});

const source = (id: string, table: string) => ({
  id,
  type: 'source',
  config: { connector_id: target.connectorId, table },
});
const transform = (id: string, sql: string) => ({ id, type: 'transform', config: { sql } });
const sink = (id: string, table: string) => ({
  id,
  type: 'sink',
  config: { connector_id: target.connectorId, table, mode: 'append' },
});

async function except(a: string, b: string): Promise<unknown[]> {
  return (await target.db.query<Record<string, unknown>>(`${a} except ${b}`)).rows;
}

describe('typed data end to end (postgres -> select * -> postgres)', () => {
  it('keeps every common type exactly, into an existing table and into one the sink creates', async () => {
    const run = await runDagToEnd(target.stack, matrixDag({ source, transform, sink }));
    expect(runOutcome(run)).toEqual({ status: 'succeeded', errors: [] });
    expect(nodeOf(run, 'into_existing')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    expect(nodeOf(run, 'into_created')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    // The transform saw the source's types, not values guessed from JS objects.
    expect(nodeOf(run, 'everything').columns).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'big', type: 'BIGINT' }),
        expect.objectContaining({ name: 'amount', type: 'DECIMAL(12,2)' }),
        expect.objectContaining({ name: 'day', type: 'DATE' }),
        expect.objectContaining({ name: 'nums', type: 'INTEGER[]' }),
      ]),
    );

    await expectCopiesOfMatrix(target.db, ['matrix_existing', 'matrix_created']);
    expect((await exactTexts(target.db, 'matrix_created'))[0]).toMatchObject({
      d: '-0',
      span: '-1 years -2 mons -3 days -04:05:06.789',
    });

    const types = await columnTypes(target.db, 'matrix_created');
    expect(types['unbounded']).toMatch(/^numeric/);
    delete types['unbounded'];
    expect(types).toEqual(CREATED_TYPES);
  });

  it('computes on numeric columns exactly: a filter, a product and sums to the cent', async () => {
    const run = await runDagToEnd(target.stack, moneyDag({ source, transform, sink }));
    expect(runOutcome(run)).toEqual({ status: 'succeeded', errors: [] });

    const expected = EXPECTED_DOUBLED;
    const written = 'select id, doubled::numeric from payments_doubled';
    expect(await except(written, expected)).toEqual([]);
    expect(await except(expected, written)).toEqual([]);

    // The exact sum, in cents, computed here from the values as PostgreSQL holds them.
    const { rows: amounts } = await target.db.query<{ cents: string }>(
      'select (amount * 100)::bigint::text as cents from payments',
    );
    const cents = amounts.reduce((sum, r) => sum + BigInt(r.cents), 0n);
    // As written, not rounded here: a float anywhere on the way would show in the text.
    const { rows: totals } = await target.db.query(
      'select total::text as total, tripled::text as tripled, n::int as n from payments_totals',
    );
    expect(totals).toEqual([{ total: asMoney(cents), tripled: asMoney(cents * 3n), n: 2002 }]);
  });
});
