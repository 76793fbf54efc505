import { getDriver, type ConnectorDriver, type CsvChunk } from '../src/index.js';
import { usePgSandbox } from './support/pg-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { waitFor } from '@conduit/testing';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('postgres') as Required<ConnectorDriver>;
const sandbox = usePgSandbox();

beforeAll(async () => {
  await sandbox.admin.query(`create table csv_src (
    id bigint primary key, amount numeric(30,10), name text, at timestamptz, flag boolean, tags int[], span interval, doc jsonb)`);
  await sandbox.admin.query(`insert into csv_src values
    (9007199254740993, 12345678901234567890.0123456789, 'say "hi", then
leave', '2024-02-03 04:05:06.789123+00', true, '{1,NULL,3}', '1 day 02:03:04.5', '{"a": [1, null]}'),
    (2, null, '', null, null, null, null, null),
    (3, 0, '\\.', '1999-12-31 23:59:59+00', false, '{}', '-3 months', '"text"')`);
});

/** Every chunk a read yields, and the rows it counted. */
async function drain(
  read: AsyncGenerator<CsvChunk, { rows_read: number }>,
): Promise<{ chunks: CsvChunk[]; rows_read: number }> {
  const chunks: CsvChunk[] = [];
  for (;;) {
    const next = await read.next();
    if (next.done) return { chunks, rows_read: next.value.rows_read };
    chunks.push(next.value);
  }
}

async function* replay(chunks: CsvChunk[]): AsyncGenerator<CsvChunk> {
  for (const chunk of chunks) yield chunk;
}

describe('postgres COPY CSV read and write', () => {
  it('copies every type exactly in PostgreSQL text form (int8, numeric, microseconds, arrays, intervals)', async () => {
    const { chunks, rows_read } = await drain(driver.readCsv(sandbox.config, { table: 'csv_src' }));
    expect(rows_read).toBe(3);
    expect(chunks[0]!.columns).toEqual(['id', 'amount', 'name', 'at', 'flag', 'tags', 'span', 'doc']);

    await sandbox.admin.query('create table csv_dst (like csv_src)');
    expect(await driver.writeCsv(sandbox.config, { table: 'csv_dst', mode: 'append' }, replay(chunks))).toEqual({
      rows_written: 3,
    });
    const diff = await sandbox.admin.query<{ n: number }>(
      `select count(*)::int as n from ((table csv_src except all table csv_dst) union all (table csv_dst except all table csv_src)) d`,
    );
    expect(diff.rows[0]!.n).toBe(0);
    const { rows } = await sandbox.admin.query(
      `select id::text, amount::text, to_char(at, 'US') as us from csv_dst where id > 1000`,
    );
    expect(rows[0]).toEqual({ id: '9007199254740993', amount: '12345678901234567890.0123456789', us: '789123' });
  });

  it('reads a query with params through the cursor, and names a bad query like the row read does', async () => {
    const { chunks, rows_read } = await drain(
      driver.readCsv(sandbox.config, {
        query: 'select id::int as id, name from csv_src where id < $1 order by id',
        params: [10],
      }),
    );
    expect(rows_read).toBe(2);
    // Every value as PostgreSQL's text, quoted (COPY FROM reads a quoted field into any type; NULL stays unquoted).
    expect(chunks.map((c) => c.csv.toString()).join('')).toBe('"2",""\n"3","\\."\n');
    // By position: two columns of one name and one named __proto__ each keep their value.
    const odd = await drain(
      driver.readCsv(sandbox.config, { query: `select $1::int as a, 2 as a, 'x' as "__proto__"`, params: [1] }),
    );
    expect(odd.chunks.map((c) => c.csv.toString()).join('')).toBe('"1","2","x"\n');

    await expect(
      drain(driver.readCsv(sandbox.config, { query: 'select * from no_such_table -- trailing comment' })),
    ).rejects.toThrow('relation "no_such_table" does not exist');
  });

  it("writes a boolean into a text column as PostgreSQL's cast and a typed write do (true, not t), by COPY and cursor", async () => {
    await sandbox.admin.query('create table csv_flags (id bigint, flag text, again boolean)');
    const reads = [
      { query: 'select id, flag, flag as again from csv_src order by id -- trailing comment' },
      { query: 'select id, flag, flag as again from csv_src where id > $1 order by id', params: [0] },
    ];
    for (const read of reads) {
      const { chunks } = await drain(driver.readCsv(sandbox.config, read));
      expect(chunks[0]!.columns).toEqual(['id', 'flag', 'again']);
      await driver.writeCsv(sandbox.config, { table: 'csv_flags', mode: 'overwrite' }, replay(chunks));
      const { rows } = await sandbox.admin.query('select id::text as id, flag, again from csv_flags order by id');
      expect(rows).toEqual([
        { id: '2', flag: null, again: null },
        { id: '3', flag: 'false', again: false },
        { id: '9007199254740993', flag: 'true', again: true },
      ]);
    }
  });

  it('overwrites in one transaction, and an empty read leaves an appended table as it was', async () => {
    await sandbox.admin.query('create table csv_over (id bigint, name text)');
    await sandbox.admin.query(`insert into csv_over values (100, 'old')`);
    const read = () =>
      driver.readCsv(sandbox.config, { query: 'select id, name from csv_src where id < 10 order by id' });
    expect(await driver.writeCsv(sandbox.config, { table: 'csv_over', mode: 'overwrite' }, read())).toEqual({
      rows_written: 2,
    });
    expect((await sandbox.admin.query('select id::int from csv_over order by id')).rows).toEqual([
      { id: 2 },
      { id: 3 },
    ]);

    const none = driver.readCsv(sandbox.config, { query: 'select id, name from csv_src where false' });
    expect(await driver.writeCsv(sandbox.config, { table: 'csv_over', mode: 'append' }, none)).toEqual({
      rows_written: 0,
    });
    expect((await sandbox.admin.query<{ n: number }>('select count(*)::int as n from csv_over')).rows[0]!.n).toBe(2);
  });

  it('stops the read and frees its connection when the consumer stops early', async () => {
    const read = driver.readCsv(sandbox.config, {
      query: "select g, repeat('x', 100) from generate_series(1, 2000000) g",
    });
    const first = await read.next();
    expect(first.done).toBe(false);
    await read.return({ rows_read: 0 });
    await waitFor(async () => !(await sandbox.sessionShows('generate_series(1, 2000000)', { active: false })), {
      what: 'the server to stop the query',
      timeoutMs: 5000,
    });
  });
});
