import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { getDriver, type ConnectorDriver, type WriteRequest } from '../src/index.js';
import { createDataRoot, type DataRootSandbox } from './support/data-root.js';
import { TEST_TENANT } from './support/tenant-driver.js';
import { openTestWorkspace, type TestWorkspace } from './support/run-workspace.js';
import {
  MATRIX_COLUMNS,
  createMatrix,
  differencesFromMatrix,
  openChecker,
  rowsOf,
  typesOf,
} from './support/typed-files.js';

// The typed file sink: the run's DuckDB writes the table (COPY ... TO in the scratch folder) and the file is moved
// into the tenant's folder; each format read back by a plain DuckDB is the table again.
const driver = getDriver('file') as Required<ConnectorDriver>;
const config = { path: 'typed' };
let sandbox: DataRootSandbox;
let ws: TestWorkspace;
// On another file system than the data root (tmpfs), so the move into place is a copy, not a rename.
let otherFsScratch: string;

const write = (req: Partial<WriteRequest> & { table: string }, table = 'matrix', scratchDir?: string) =>
  driver.writeFromTable(config, { mode: 'overwrite', ...req, tenantId: TEST_TENANT }, ws.target(table, scratchDir));
const filesIn = async (folder: string) => (await readdir(join(sandbox.home, 'typed', folder))).sort();

beforeAll(async () => {
  sandbox = await createDataRoot();
  otherFsScratch = await mkdtemp('/dev/shm/typed-files-');
  ws = await openTestWorkspace({ timeZone: 'America/New_York', extraScratchDirs: [otherFsScratch] });
  await createMatrix(ws.connection, 'matrix');
  await ws.connection.run('create table nothing as select * from matrix where false');
});

afterAll(async () => {
  await ws?.close();
  if (otherFsScratch) await rm(otherFsScratch, { recursive: true, force: true });
  await sandbox.remove();
});

describe('file typed write: every format keeps the table', () => {
  it.each(['parquet', 'csv', 'jsonl'] as const)('writes %s that reads back as the same rows', async (format) => {
    expect(await write({ table: `out/matrix.${format}` })).toEqual({ rows_written: 4 });
    const file = join(sandbox.home, 'typed', 'out', `matrix.${format}`);
    expect(await differencesFromMatrix(format, file)).toEqual([]);
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it('keeps the types in Parquet, HUGEINT as its text and INTERVAL as months, days and micros', async () => {
    await write({ table: 'out/types.parquet' });
    const checker = await openChecker();
    try {
      const file = join(sandbox.home, 'typed', 'out', 'types.parquet');
      // Every column keeps its type but these two, which Parquet has no type for.
      const stored: Record<string, string> = {
        huge: 'VARCHAR',
        span: 'STRUCT("months" BIGINT, "days" BIGINT, micros BIGINT)',
      };
      expect(await typesOf(checker.connection, `select * from read_parquet('${file}')`)).toEqual(
        MATRIX_COLUMNS.map(([name, type]) => [name, stored[name] ?? type]),
      );
      expect(
        await rowsOf(
          checker.connection,
          `select id, huge, span from read_parquet('${file}') where id in (1, 3) order by id`,
        ),
      ).toEqual([
        [1, '170141183460469231731687303715884105727', { months: '-14', days: '3', micros: '-14706789001' }],
        [3, null, null],
      ]);
    } finally {
      checker.close();
    }
  });

  it('writes CSV as exact text: decimals with their scale, ISO dates, instants in UTC, NULL apart from the empty string', async () => {
    await write({ table: 'out/text.csv' });
    const lines = (await readFile(join(sandbox.home, 'typed', 'out', 'text.csv'), 'utf8')).split('\n');
    expect(lines[0]).toBe('id,amount,price,big,huge,ratio,flag,note,day,at,instant,span,uid,nums,tags,pair,raw,doc');
    expect(lines.find((l) => l.startsWith('4,'))).toBe(
      '4,0.1000000000,0.10,0,0,0.1,,NULL,1969-07-20,2000-02-29 00:00:00,infinity,-00:00:00.000001,,[NULL],[NULL],,\\x5C.,null',
    );
    expect(lines.find((l) => l.startsWith('2,'))).toMatch(
      /^2,-0\.0000000001,-9999999999\.99,-9223372036854775808,.*,2024-02-29,2024-02-29 12:34:56,1969-12-31 23:59:59\.999999\+00,/,
    );
    expect(lines.find((l) => l.startsWith('3,'))).toBe('3,,,,,,,,,,,,,,,,,');
  });

  it('writes JSON lines with numbers exact and instants in UTC', async () => {
    await write({ table: 'out/values.jsonl' });
    const lines = (await readFile(join(sandbox.home, 'typed', 'out', 'values.jsonl'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain(
      '"amount":"9999999999999999999999999999.9999999999","price":"9999999999.99","big":9223372036854775807,',
    );
    expect(lines[0]).toContain('"huge":"170141183460469231731687303715884105727","ratio":1e300,');
    expect(lines[0]).toContain('"instant":"2024-02-29 18:29:59.999999+00"');
    expect(lines[2]).toBe(
      '{"id":3' +
        ',"amount":null,"price":null,"big":null,"huge":null,"ratio":null,"flag":null,"note":null,"day":null,"at":null,"instant":null,"span":null,"uid":null,"nums":null,"tags":null,"pair":null,"raw":null,"doc":null}',
    );
  });
});

describe("file typed write: the row sink's modes and names", () => {
  it('overwrites a named file, and appends beside it as a part file', async () => {
    await write({ table: 'named/data.parquet' });
    await write({ table: 'named/data.parquet' });
    expect(await filesIn('named')).toEqual(['data.parquet']);
    expect(await write({ table: 'named/data.parquet', mode: 'append' })).toEqual({ rows_written: 4 });
    expect(await filesIn('named')).toEqual([
      expect.stringMatching(/^data-part-\d{8}T\d{9}Z-[0-9a-f]{8}\.parquet$/),
      'data.parquet',
    ]);
  });

  it('adds part files to a folder and an overwrite leaves only its own, also from another file system', async () => {
    await write({ table: 'folder', mode: 'append', format: 'csv' });
    await write({ table: 'folder', mode: 'append', format: 'csv' }, 'matrix', otherFsScratch);
    expect(await filesIn('folder')).toEqual([
      expect.stringMatching(/^part-.*\.csv$/),
      expect.stringMatching(/^part-.*\.csv$/),
    ]);
    expect(await write({ table: 'folder', mode: 'overwrite', format: 'csv' }, 'matrix', otherFsScratch)).toEqual({
      rows_written: 4,
    });
    const files = await filesIn('folder');
    expect(files).toEqual([expect.stringMatching(/^part-.*\.csv$/)]);
    expect(await differencesFromMatrix('csv', join(sandbox.home, 'typed', 'folder', files[0]!))).toEqual([]);
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it('writes no file for no rows, except an overwrite of a named file, which keeps the columns and types', async () => {
    expect(await write({ table: 'empty', mode: 'append', format: 'parquet' }, 'nothing')).toEqual({ rows_written: 0 });
    await expect(filesIn('empty')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await write({ table: 'empty/none.parquet' }, 'nothing')).toEqual({ rows_written: 0 });
    const checker = await openChecker();
    try {
      const file = join(sandbox.home, 'typed', 'empty', 'none.parquet');
      expect(await rowsOf(checker.connection, `select count(*)::INTEGER from read_parquet('${file}')`)).toEqual([[0]]);
      expect(await typesOf(checker.connection, `select amount, day from read_parquet('${file}')`)).toEqual([
        ['amount', 'DECIMAL(38,10)'],
        ['day', 'DATE'],
      ]);
    } finally {
      checker.close();
    }
    expect(await filesIn('empty')).toEqual(['none.parquet']);
  });

  it('refuses upsert and a path that leaves the data root, and leaves nothing behind', async () => {
    await expect(write({ table: 'x.csv', mode: 'upsert', key: ['id'] })).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'the file connector cannot upsert: use append or overwrite',
    });
    await expect(write({ table: '../../escape.csv' })).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'path leaves the data root',
    });
    await expect(
      driver.writeFromTable(config, { table: 'x.csv', mode: 'overwrite' }, ws.target('matrix')),
    ).rejects.toMatchObject({ errorClass: 'config_error' });
    expect(await ws.scratchEntries()).toEqual([]);
  });
});
