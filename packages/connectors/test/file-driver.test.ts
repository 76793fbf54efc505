import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDriver, type ConnectorDriver, type Row } from '../src/index.js';
import { createDataRoot, type DataRootSandbox } from './support/data-root.js';
import { withTenant } from './support/tenant-driver.js';
import { batchesOf } from './support/driver-batches.js';

const raw = getDriver('file') as ConnectorDriver;
const driver = withTenant(raw);
let sandbox: DataRootSandbox;
let outside: string;

beforeAll(async () => {
  sandbox = await createDataRoot();
  outside = await mkdtemp(join(tmpdir(), 'conduit-outside-'));
  await writeFile(join(outside, 'secret.csv'), 'a\n1\n');
});
afterAll(async () => {
  await sandbox.remove();
  await rm(outside, { recursive: true, force: true });
});

async function collect(batches: AsyncIterable<Row[]>): Promise<Row[][]> {
  const out: Row[][] = [];
  for await (const batch of batches) out.push(batch);
  return out;
}

const sample: Row[] = [
  { id: 1, name: 'ann, "the first"', score: 1.5, ok: true },
  { id: 2, name: 'bob\nnew line', score: null, ok: false },
];

describe('file driver', () => {
  it('is a file-category type serving source and sink, with no secrets', () => {
    expect(driver.info).toMatchObject({ type: 'file', category: 'file', roles: ['source', 'sink'], secret_fields: [] });
  });

  it('writes and reads back JSON lines, keeping types', async () => {
    const cfg = { path: 'jsonl' };
    expect(
      await driver.write!(cfg, { table: '', path: 'out/people.jsonl', mode: 'overwrite' }, batchesOf(sample)),
    ).toEqual({ rows_written: 2 });
    const text = await readFile(join(sandbox.home, 'jsonl/out/people.jsonl'), 'utf8');
    expect(
      text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Row),
    ).toEqual(sample);
    expect((await collect(driver.read!(cfg, { path: 'out/people.jsonl' }))).flat()).toEqual(sample);
  });

  it('writes and reads back CSV with a header, nulls as empty fields and values as text', async () => {
    const cfg = { path: 'csv' };
    await driver.write!(
      cfg,
      { table: 'people.csv', mode: 'overwrite' },
      batchesOf(sample.slice(0, 1), sample.slice(1)),
    );
    const text = await readFile(join(sandbox.home, 'csv/people.csv'), 'utf8');
    expect(text.split('\n')[0]).toBe('id,name,score,ok');
    expect((await collect(driver.read!(cfg, { table: 'people.csv' }))).flat()).toEqual([
      { id: '1', name: 'ann, "the first"', score: '1.5', ok: 'true' },
      { id: '2', name: 'bob\nnew line', score: null, ok: 'false' },
    ]);
  });

  it('writes Parquet in row groups and reads it back in batches of batchSize', async () => {
    const cfg = { path: 'pq' };
    const batches = (async function* () {
      for (let b = 0; b < 12; b++) {
        yield Array.from({ length: 5000 }, (_, i) => ({
          id: b * 5000 + i,
          label: `row ${b * 5000 + i}`,
          big: BigInt(b * 5000 + i) * 1_000_000_000_000n,
          at: new Date(Date.UTC(2024, 0, 1) + i),
          flag: i % 2 === 0,
          doc: { n: i },
        }));
      }
    })();
    expect(await driver.write!(cfg, { table: '', path: 'big.parquet', mode: 'overwrite' }, batches)).toEqual({
      rows_written: 60_000,
    });
    const read = await collect(driver.read!(cfg, { path: 'big.parquet', batchSize: 20_000 }));
    expect(read.map((b) => b.length)).toEqual([20_000, 20_000, 10_000, 10_000]);
    const rows = read.flat();
    expect(rows[59_999]).toEqual({
      id: 59_999,
      label: 'row 59999',
      big: 59_999_000_000_000_000n,
      at: new Date(Date.UTC(2024, 0, 1) + 4999),
      flag: false,
      doc: { n: 4999 },
    });
    expect(rows[1]).toMatchObject({ id: 1, big: 1_000_000_000_000 });
  });

  it('appends part files to a folder, overwrites the folder, and reads every file in name order', async () => {
    const cfg = { path: 'parts', format: 'jsonl' };
    await driver.write!(cfg, { table: 'daily', mode: 'append' }, batchesOf([{ n: 1 }]));
    await driver.write!(cfg, { table: 'daily', mode: 'append' }, batchesOf([{ n: 2 }, { n: 3 }]));
    expect((await readdir(join(sandbox.home, 'parts/daily'))).filter((f) => f.endsWith('.jsonl'))).toHaveLength(2);
    expect((await collect(driver.read!(cfg, { path: 'daily' }))).flat()).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);

    await driver.write!(cfg, { table: 'daily', mode: 'overwrite' }, batchesOf([{ n: 9 }]));
    expect(await readdir(join(sandbox.home, 'parts/daily'))).toHaveLength(1);
    expect((await collect(driver.read!(cfg, { path: 'daily' }))).flat()).toEqual([{ n: 9 }]);
  });

  it('appends to a named file as a new part file beside it, and reads a glob', async () => {
    const cfg = { path: 'named' };
    await driver.write!(cfg, { table: 'orders.csv', mode: 'append' }, batchesOf([{ id: 'a' }]));
    await driver.write!(cfg, { table: 'orders.csv', mode: 'append' }, batchesOf([{ id: 'b' }]));
    const files = (await readdir(join(sandbox.home, 'named'))).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^orders-part-\d{8}T\d{9}Z-[0-9a-f]{8}\.csv$/);
    await writeFile(join(sandbox.home, 'named/other.jsonl'), '{"id":"c"}\n');
    const read = (await collect(driver.read!(cfg, { path: 'orders*.csv' }))).flat();
    expect(read.map((r) => r['id']).sort()).toEqual(['a', 'b']);
    expect((await collect(driver.read!(cfg, { path: '**/*.jsonl' }))).flat()).toEqual([{ id: 'c' }]);
  });

  it('refuses paths that leave the data root: .., absolute, and symbolic links', async () => {
    await expect(collect(driver.read!({}, { path: '../etc/passwd' }))).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'path leaves the data root',
    });
    await expect(collect(driver.read!({ path: '../..' }, { path: 'x.csv' }))).rejects.toThrow(/leaves the data root/);
    await expect(collect(driver.read!({}, { path: '/etc/passwd' }))).rejects.toThrow(/must be relative/);
    await symlink(outside, join(sandbox.home, 'escape'));
    await expect(collect(driver.read!({}, { path: 'escape/secret.csv' }))).rejects.toThrow(/through a symbolic link/);
    await expect(driver.write!({}, { table: 'escape/new.csv', mode: 'append' }, batchesOf([{ a: 1 }]))).rejects.toThrow(
      /through a symbolic link/,
    );
    await mkdir(join(sandbox.home, 'links'));
    await symlink(join(outside, 'secret.csv'), join(sandbox.home, 'links/secret.csv'));
    await expect(collect(driver.read!({ path: 'links' }, {}))).rejects.toThrow(/through a symbolic link/);
    expect(await readdir(outside)).toEqual(['secret.csv']);
  });

  it('says clearly what is wrong: a missing file, a bad line, upsert', async () => {
    await expect(collect(driver.read!({}, { path: 'nope.csv' }))).rejects.toMatchObject({
      errorClass: 'config_error',
      message: '"nope.csv" does not exist',
    });
    await writeFile(join(sandbox.home, 'bad.jsonl'), '{"a":1}\nnot json\n');
    await expect(collect(driver.read!({}, { path: 'bad.jsonl' }))).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'bad.jsonl: line 2 is not valid JSON',
    });
    await expect(
      driver.write!({}, { table: 'x.csv', mode: 'upsert', key: ['a'] }, batchesOf([{ a: 1 }])),
    ).rejects.toThrow(/cannot upsert/);
  });
});

describe('file Test Connection', () => {
  it('passes for an existing folder and fails clearly for a missing one or one outside the root', async () => {
    await mkdir(join(sandbox.home, 'ready'), { recursive: true });
    const ok = await driver.test({ path: 'ready' });
    expect(ok).toMatchObject({ ok: true, error_class: null, details: { path: 'ready', writable: true } });
    expect(ok.checks.map((c) => c.name)).toEqual(['resolve', 'folder', 'permission']);

    const missing = await driver.test({ path: 'not-there' });
    expect(missing).toMatchObject({
      ok: false,
      error_class: 'config_error',
      message: 'folder "not-there" does not exist',
    });
    const escaping = await driver.test({ path: '../../tmp' });
    expect(escaping).toMatchObject({ ok: false, error_class: 'config_error', message: 'path leaves the data root' });
    expect(JSON.stringify(escaping)).not.toContain(sandbox.home);
  });
});

describe('file tenants', () => {
  it("keeps each tenant's files in its own folder and refuses a call without a tenant", async () => {
    const other = withTenant(raw, 'tnt_other');
    await other.write!({ path: 'shared' }, { table: 'data.jsonl', mode: 'overwrite' }, batchesOf([{ owner: 'other' }]));
    await expect(collect(driver.read!({ path: 'shared' }, { path: 'data.jsonl' }))).rejects.toMatchObject({
      message: '"shared/data.jsonl" does not exist',
    });
    expect((await collect(other.read!({ path: 'shared' }, { path: 'data.jsonl' }))).flat()).toEqual([
      { owner: 'other' },
    ]);
    await expect(collect(raw.read!({ path: 'shared' }, { path: 'data.jsonl' }))).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/need the calling tenant/),
    });
    await expect(raw.write!({}, { table: 'x.jsonl', mode: 'append' }, batchesOf([{ a: 1 }]))).rejects.toThrow(
      /need the calling tenant/,
    );
    expect(await raw.test({ path: '.' })).toMatchObject({ ok: false, error_class: 'config_error' });
  });
});
