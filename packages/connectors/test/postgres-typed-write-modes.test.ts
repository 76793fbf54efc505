import { getDriver, type ConnectorDriver, type DuckDBTable } from '../src/index.js';
import { waitFor } from '@conduit/testing';
import { usePgSandbox } from './support/pg-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { openTestWorkspace } from './support/run-workspace.js';
import { suiteFixture } from './support/suite-fixture.js';

// The typed PostgreSQL sink's table handling on a real PostgreSQL: create / create: false, missing columns and
// schema_evolution, overwrite and upsert, and a failure that leaves the target as it was.
allowPrivateNetworks();

const driver = getDriver('postgres') as Required<ConnectorDriver>;
const sandbox = usePgSandbox();
// A DuckDB locked down like a run's workspace: it may touch files only in its scratch folder.
const workspace = suiteFixture(openTestWorkspace, (ws) => ws.close());

beforeAll(async () => {
  await workspace.connection.run(`create table orders as select * from (values
      (1, 10.50::decimal(10,2), 'first', ['a']),
      (2, 20.25::decimal(10,2), 'second', []::varchar[]),
      (3, NULL::decimal(10,2), NULL, NULL)
    ) t(id, amount, note, tags)`);
  await workspace.connection.run(`create table changes as select * from (values
      (2, 99.99::decimal(10,2), 'second, changed', ['x']),
      (4, 1.00::decimal(10,2), 'fourth', ['y']),
      (4, 4.00::decimal(10,2), 'fourth, last wins', ['z'])
    ) t(id, amount, note, tags)`);
});

afterEach(async () => {
  // Whatever happened, the CSV file is gone.
  expect(await workspace.scratchEntries()).toEqual([]);
});

const source = (table: string): DuckDBTable => workspace.target(table);
const rowsOf = async (table: string) =>
  (
    await sandbox.admin.query<Record<string, unknown>>(
      `select id, amount::text as amount, note, tags from ${table} order by id`,
    )
  ).rows;
const exists = async (table: string) =>
  (await sandbox.admin.query<{ t: string | null }>('select to_regclass($1) as t', [table])).rows[0]!.t !== null;

describe('postgres typed write: tables, columns and modes', () => {
  it('refuses a missing table when create is false, naming it, and creates nothing', async () => {
    const write = driver.writeFromTable(
      sandbox.config,
      { table: 'nowhere', mode: 'append', create: false },
      source('orders'),
    );
    await expect(write).rejects.toMatchObject({ name: 'ConnectorError', errorClass: 'config_error' });
    await expect(write).rejects.toThrow(`table "${sandbox.schema}"."nowhere" does not exist`);
    expect(await exists('nowhere')).toBe(false);
  });

  it('fails on a column the target lacks, naming it and the table; add_columns adds it with the mapped type', async () => {
    await sandbox.admin.query('create table narrow (id int, note text)');
    await sandbox.admin.query(`insert into narrow values (0, 'kept')`);
    const refused = driver.writeFromTable(sandbox.config, { table: 'narrow', mode: 'append' }, source('orders'));
    await expect(refused).rejects.toMatchObject({ errorClass: 'config_error' });
    await expect(refused).rejects.toThrow(`table "${sandbox.schema}"."narrow" has no column(s) "amount", "tags"`);
    expect((await sandbox.admin.query<{ n: number }>('select count(*)::int as n from narrow')).rows[0]!.n).toBe(1);

    const added = await driver.writeFromTable(
      sandbox.config,
      { table: 'narrow', mode: 'append', schema_evolution: 'add_columns' },
      source('orders'),
    );
    expect(added).toEqual({ rows_written: 3 });
    const { rows: types } = await sandbox.admin.query(
      `select attname, format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = 'narrow'::regclass and attnum > 0 order by attnum`,
    );
    expect(types).toEqual([
      { attname: 'id', type: 'integer' },
      { attname: 'note', type: 'text' },
      { attname: 'amount', type: 'numeric(10,2)' },
      { attname: 'tags', type: 'text[]' },
    ]);
    expect(await rowsOf('narrow')).toEqual([
      { id: 0, amount: null, note: 'kept', tags: null },
      { id: 1, amount: '10.50', note: 'first', tags: ['a'] },
      { id: 2, amount: '20.25', note: 'second', tags: [] },
      { id: 3, amount: null, note: null, tags: null },
    ]);
  });

  it('creates an upsert target with the key as its primary key, then updates and inserts (last row of a key wins)', async () => {
    await expect(
      driver.writeFromTable(sandbox.config, { table: 'by_id', mode: 'upsert', key: ['id'] }, source('orders')),
    ).resolves.toEqual({ rows_written: 3 });
    const { rows: pk } = await sandbox.admin.query(
      `select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
        where i.indrelid = 'by_id'::regclass and i.indisprimary`,
    );
    expect(pk).toEqual([{ attname: 'id' }]);

    await expect(
      driver.writeFromTable(sandbox.config, { table: 'by_id', mode: 'upsert', key: ['id'] }, source('changes')),
    ).resolves.toEqual({ rows_written: 2 });
    expect(await rowsOf('by_id')).toEqual([
      { id: 1, amount: '10.50', note: 'first', tags: ['a'] },
      { id: 2, amount: '99.99', note: 'second, changed', tags: ['x'] },
      { id: 3, amount: null, note: null, tags: null },
      { id: 4, amount: '4.00', note: 'fourth, last wins', tags: ['z'] },
    ]);
  });

  it('says so when the upsert key is not unique on an existing table, and when it is not among the columns', async () => {
    await sandbox.admin.query('create table loose (id int, amount numeric(10,2), note text, tags text[])');
    const notUnique = driver.writeFromTable(
      sandbox.config,
      { table: 'loose', mode: 'upsert', key: ['id'] },
      source('orders'),
    );
    await expect(notUnique).rejects.toMatchObject({ errorClass: 'config_error' });
    await expect(notUnique).rejects.toThrow(
      `upsert key ("id") is not the primary key or a unique constraint of table "${sandbox.schema}"."loose"`,
    );

    const unknownKey = driver.writeFromTable(
      sandbox.config,
      { table: 'loose', mode: 'upsert', key: ['nope'] },
      source('orders'),
    );
    await expect(unknownKey).rejects.toThrow('key column(s) "nope"');
  });

  it('overwrites in one transaction, and a failed write leaves the target (or its absence) as it was', async () => {
    await sandbox.admin.query(
      'create table strict (id int primary key, amount numeric(10,2), note text not null, tags jsonb)',
    );
    await sandbox.admin.query(`insert into strict values (9, 9.99, 'old', '[]')`);
    // Row 3's note is NULL: the NOT NULL check fails after the truncate, which must roll back with the copy.
    const failed = driver.writeFromTable(sandbox.config, { table: 'strict', mode: 'overwrite' }, source('orders'));
    await expect(failed).rejects.toMatchObject({ errorClass: 'config_error', code: '23502' });
    await expect(failed).rejects.toThrow(/; at COPY strict, line 3$/);

    // A value the column cannot hold: the message names the line and column, not the row's other data.
    await workspace.connection.run(
      `create table wrong as select 1 as id, 2.5::decimal(10,2) as amount, 'secret-ish' as note, 'not json' as tags`,
    );
    const badValue = driver.writeFromTable(sandbox.config, { table: 'strict', mode: 'append' }, source('wrong'));
    await expect(badValue).rejects.toMatchObject({ errorClass: 'config_error', code: '22P02' });
    await expect(badValue).rejects.toThrow(/; at COPY strict, line 1, column tags$/);
    await expect(badValue).rejects.not.toThrow(/secret-ish/);
    expect(await rowsOf('strict')).toEqual([{ id: 9, amount: '9.99', note: 'old', tags: [] }]);

    // Key 4 comes twice: the primary key fails the copy, and the old row stays.
    await expect(
      driver.writeFromTable(sandbox.config, { table: 'strict', mode: 'overwrite' }, source('changes')),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await rowsOf('strict')).toEqual([{ id: 9, amount: '9.99', note: 'old', tags: [] }]);

    // Overwritten at last; a list going into an existing jsonb column is written as JSON.
    await workspace.connection.run(`create table fresh as select * from changes where note <> 'fourth'`);
    await expect(
      driver.writeFromTable(sandbox.config, { table: 'strict', mode: 'overwrite' }, source('fresh')),
    ).resolves.toEqual({ rows_written: 2 });
    expect(await rowsOf('strict')).toEqual([
      { id: 2, amount: '99.99', note: 'second, changed', tags: ['x'] },
      { id: 4, amount: '4.00', note: 'fourth, last wins', tags: ['z'] },
    ]);

    // A table the failed write would have created is not there either (key 4 comes twice in an append).
    const created = driver.writeFromTable(
      sandbox.config,
      { table: 'never', mode: 'append', key: ['id'] },
      source('changes'),
    );
    await expect(created).rejects.toMatchObject({ code: '23505' });
    expect(await exists('never')).toBe(false);
  });

  it('stops when aborted mid-write: the abort reason, nothing written, no file left', async () => {
    await workspace.connection.run(
      `create table big as select i as id, (i / 100)::decimal(12,2) as amount, 'row ' || i as note, [i] as tags from range(3000000) r(i)`,
    );
    await sandbox.admin.query('create table aborted (id bigint, amount numeric(12,2), note text, tags bigint[])');
    await sandbox.admin.query(`insert into aborted values (0, 0, 'before', '{}')`);
    const controller = new AbortController();
    const write = driver.writeFromTable(
      sandbox.config,
      { table: 'aborted', mode: 'overwrite', signal: controller.signal },
      source('big'),
    );
    // Abort once the data is on its way (DuckDB is writing the file).
    await waitFor(async () => (await workspace.scratchEntries()).length > 0, {
      what: 'the CSV file',
      timeoutMs: 20_000,
    });
    controller.abort(new Error('run canceled'));
    await expect(write).rejects.toThrow('run canceled');
    expect(await rowsOf('aborted')).toEqual([{ id: '0', amount: '0.00', note: 'before', tags: [] }]);
  });

  it('fails as PostgreSQL says when COPY fails while DuckDB still writes the file, stopping DuckDB and writing nothing', async () => {
    await workspace.connection.run(
      `create or replace table late as select i as id, 'row ' || i as note from range(1, 2000001) r(i)`,
    );
    await sandbox.admin.query('create table clash (id bigint primary key, note text)');
    // The clash is near the end: COPY has read most of the file by then, and DuckDB may still be writing it.
    await sandbox.admin.query(`insert into clash values (1900000, 'already here')`);
    const write = driver.writeFromTable(sandbox.config, { table: 'clash', mode: 'append' }, source('late'));
    await expect(write).rejects.toThrow(/duplicate key value violates unique constraint/);
    expect((await sandbox.admin.query('select count(*)::int as n from clash')).rows).toEqual([{ n: 1 }]);
    // The node's DuckDB connection is free again, not busy with an export nobody reads.
    expect((await workspace.connection.runAndReadAll('select count(*) from late')).getRows()).toEqual([[2000000n]]);
  });
});
