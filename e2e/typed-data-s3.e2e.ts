import { startS3Server, type S3Server } from '@conduit/testing';
import { create, nodeColumnTypes, nodeOf, runDagToEnd, runOutcome, uniqueName } from './support/helpers.js';
import { matrixDag } from './support/money-pipeline.js';
import { CREATED_TYPES, columnTypes, createMatrix, expectCopiesOfMatrix } from './support/pg-type-matrix.js';
import { useTargetStack } from './support/target-stack.js';

// Issue 15's type matrix through Parquet on S3, end to end: the PostgreSQL every-type table goes through `select *`
// into a Parquet object (the s3 sink's typed write), and back from it (the s3 source's typed read) into an existing
// table of the same types and into a table the sink creates; `except` both ways is empty. Parquet cannot hold an
// INTERVAL: the object carries it as its months, days and micros (docs/type-mapping.md), which the return leg rebuilds,
// and a plain `select *` return shows that documented form.
const OBJECT = 'matrix/matrix.parquet';
const REBUILD_SPAN =
  'select * replace (to_months(span.months) + to_days(span.days) + to_microseconds(span.micros) as span) from extract';

const target = useTargetStack({ prepare: createMatrix });
let s3: S3Server;
let objects: string;

beforeAll(async () => {
  s3 = await startS3Server();
  objects = (await create(target.stack, '/v2/connectors', { name: uniqueName('s3'), type: 's3', config: s3.config() }))
    .id;
});

afterAll(async () => {
  await s3?.close();
});

const transform = (id: string, sql: string) => ({ id, type: 'transform', config: { sql } });
const pgSink = (id: string, table: string) => ({
  id,
  type: 'sink',
  config: { connector_id: target.connectorId, table, mode: 'append' },
});
const s3Source = (id: string) => ({ id, type: 'source', config: { connector_id: objects, path: OBJECT } });

describe('typed data end to end (postgres -> select * -> Parquet on S3 -> postgres)', () => {
  it('writes the matrix as a Parquet object with its types', async () => {
    const run = await runDagToEnd(target.stack, {
      nodes: [
        { id: 'extract', type: 'source', config: { connector_id: target.connectorId, table: 'matrix' } },
        transform('everything', 'select * from extract'),
        { id: 'store', type: 'sink', config: { connector_id: objects, path: OBJECT, mode: 'overwrite' } },
      ],
      edges: [
        { from: 'extract', to: 'everything' },
        { from: 'everything', to: 'store' },
      ],
    });
    expect(runOutcome(run)).toEqual({ status: 'succeeded', errors: [] });
    expect(nodeOf(run, 'store')).toMatchObject({ status: 'succeeded', rows_out: 4 });
  });

  it('reads it back into an existing table and a created one, equal to the original both ways', async () => {
    const run = await runDagToEnd(
      target.stack,
      matrixDag({ source: s3Source, transform, sink: pgSink }, {}, REBUILD_SPAN),
    );
    expect(runOutcome(run)).toEqual({ status: 'succeeded', errors: [] });
    expect(nodeOf(run, 'into_existing')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    expect(nodeOf(run, 'into_created')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    // The object's own schema, as the S3 source read it: the types the PostgreSQL source declared.
    expect(nodeColumnTypes(run, 'extract')).toMatchObject({
      big: 'BIGINT',
      amount: 'DECIMAL(12,2)',
      day: 'DATE',
      tstz: 'TIMESTAMP WITH TIME ZONE',
      uid: 'UUID',
      doc: 'JSON',
      nums: 'INTEGER[]',
      tags: 'VARCHAR[]',
      raw: 'BLOB',
    });
    expect(nodeColumnTypes(run, 'everything')['span']).toBe('INTERVAL');

    await expectCopiesOfMatrix(target.db, ['matrix_existing', 'matrix_created']);
    const types = await columnTypes(target.db, 'matrix_created');
    expect(types['unbounded']).toMatch(/^numeric/);
    delete types['unbounded'];
    expect(types).toEqual(CREATED_TYPES);
  });

  it('carries an interval in Parquet as its months, days and micros, as documented', async () => {
    const run = await runDagToEnd(target.stack, {
      nodes: [
        s3Source('extract'),
        transform('everything', 'select id, span from extract'),
        pgSink('save', 'matrix_as_stored'),
      ],
      edges: [
        { from: 'extract', to: 'everything' },
        { from: 'everything', to: 'save' },
      ],
    });
    expect(runOutcome(run)).toEqual({ status: 'succeeded', errors: [] });
    expect(nodeColumnTypes(run, 'extract')['span']).toMatch(
      /^STRUCT\("?months"? BIGINT, "?days"? BIGINT, "?micros"? BIGINT\)$/,
    );
    expect(await columnTypes(target.db, 'matrix_as_stored')).toEqual({ id: 'integer', span: 'jsonb' });
    // Each part as PostgreSQL itself keeps it (months, days and microseconds apart, with their own signs).
    const { rows } = await target.db.query<{ id: number; stored: unknown; parts: unknown }>(`
      select m.id, s.span as stored,
             case when m.span is null then null else jsonb_build_object(
               'months', (extract(year from m.span) * 12 + extract(month from m.span))::bigint,
               'days', extract(day from m.span)::bigint,
               'micros', (extract(epoch from m.span - date_trunc('day', m.span)) * 1000000)::bigint) end as parts
        from matrix m join matrix_as_stored s using (id) order by m.id`);
    expect(rows.map((r: { id: number; stored: unknown; parts: unknown }) => [r.id, r.stored])).toEqual(
      rows.map((r: { id: number; stored: unknown; parts: unknown }) => [r.id, r.parts]),
    );
    expect(rows[0]?.stored).toEqual({ months: -14, days: -3, micros: -14706789000 });
  });
});
