import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { startS3Server } from '@conduit/testing';
import { getDriver, type ConnectorDriver, type WriteRequest } from '../src/index.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { openTestWorkspace, type TestWorkspace } from './support/run-workspace.js';
import { suiteFixture } from './support/suite-fixture.js';
import { createMatrix, differencesFromMatrix, openChecker, rowsOf } from './support/typed-files.js';

// The test server listens on this machine, which the default network policy refuses.
allowPrivateNetworks();

// The typed S3 sink: the run's DuckDB writes the table into its scratch folder and the file is streamed to the object.
const driver = getDriver('s3') as Required<ConnectorDriver>;
const s3 = suiteFixture(startS3Server, (server) => server.close());
let ws: TestWorkspace;
let downloads: string;

const write = (req: Partial<WriteRequest> & { table: string }, table = 'matrix', config = s3.config()) =>
  driver.writeFromTable(config, { mode: 'overwrite', ...req }, ws.target(table));
const keysUnder = async (prefix: string) =>
  ((await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }))).Contents ?? [])
    .map((o) => o.Key!)
    .sort();

/** The object saved as a local file, for the test's own DuckDB to read. */
async function download(key: string): Promise<string> {
  const body = await (
    await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }))
  ).Body!.transformToByteArray();
  const file = join(downloads, key.replace(/\//g, '_'));
  await writeFile(file, body);
  return file;
}

beforeAll(async () => {
  downloads = await mkdtemp(join(tmpdir(), 's3-typed-downloads-'));
  ws = await openTestWorkspace({ timeZone: 'America/New_York' });
  await createMatrix(ws.connection, 'matrix');
  await ws.connection.run('create table nothing as select * from matrix where false');
});

afterAll(async () => {
  await ws?.close();
  if (downloads) await rm(downloads, { recursive: true, force: true });
});

describe('s3 typed write', () => {
  it.each(['parquet', 'csv', 'jsonl'] as const)(
    'writes a %s object that reads back as the same rows',
    async (format) => {
      expect(await write({ table: `typed/matrix.${format}` })).toEqual({ rows_written: 4 });
      const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `typed/matrix.${format}` }));
      expect(head.ContentType).toBe(
        { parquet: 'application/vnd.apache.parquet', csv: 'text/csv', jsonl: 'application/x-ndjson' }[format],
      );
      expect(await differencesFromMatrix(format, await download(`typed/matrix.${format}`))).toEqual([]);
      expect(await ws.scratchEntries()).toEqual([]);
    },
  );

  it('appends part objects under a prefix, an overwrite leaves only its own, and no rows write no object', async () => {
    const cfg = s3.config({ prefix: 'parts/', format: 'parquet' });
    expect(await write({ table: 'daily', mode: 'append' }, 'matrix', cfg)).toEqual({ rows_written: 4 });
    expect(await write({ table: 'daily', mode: 'append' }, 'matrix', cfg)).toEqual({ rows_written: 4 });
    expect(await write({ table: 'daily', mode: 'append' }, 'nothing', cfg)).toEqual({ rows_written: 0 });
    expect(await keysUnder('parts/daily/')).toEqual([
      expect.stringMatching(/^parts\/daily\/part-.*\.parquet$/),
      expect.stringMatching(/^parts\/daily\/part-.*\.parquet$/),
    ]);
    expect(await write({ table: 'daily', mode: 'overwrite' }, 'matrix', cfg)).toEqual({ rows_written: 4 });
    const keys = await keysUnder('parts/daily/');
    expect(keys).toHaveLength(1);
    expect(await differencesFromMatrix('parquet', await download(keys[0]!))).toEqual([]);
  });

  it('uploads a large file in parts (multipart upload), with DECIMAL text exact', async () => {
    await ws.connection.run(
      `create table large as select i as id, (i * 7 % 100000 * 0.01)::DECIMAL(12,2) as amount, repeat('p', 100) || i as pad from range(120000) t(i)`,
    );
    const cfg = s3.config({ part_size_mb: 5 });
    expect(await write({ table: 'big/large.csv' }, 'large', cfg)).toEqual({ rows_written: 120_000 });
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'big/large.csv' }));
    expect(head.ContentLength).toBeGreaterThan(10 * 1024 * 1024);
    expect(s3.uploadedParts('big/large.csv')).toHaveLength(3);
    const checker = await openChecker();
    try {
      const file = await download('big/large.csv');
      const read = `select * from read_csv('${file}', header = true, auto_detect = false, columns = {'id': 'BIGINT', 'amount': 'DECIMAL(12,2)', 'pad': 'VARCHAR'})`;
      const totals = 'select count(*)::INTEGER, sum(amount)::VARCHAR, max(pad)';
      expect(await rowsOf(checker.connection, `${totals} from (${read})`)).toEqual(
        await rowsOf(ws.connection, `${totals} from large`),
      );
    } finally {
      checker.close();
    }
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it('says what is wrong (upsert, a missing bucket) and leaves no scratch file', async () => {
    await expect(write({ table: 'x.csv', mode: 'upsert', key: ['id'] })).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'the s3 connector cannot upsert: use append or overwrite',
    });
    await expect(
      write({ table: 'x.parquet' }, 'matrix', s3.config({ bucket: 'no-such-bucket' })),
    ).rejects.toMatchObject({ errorClass: 'config_error' });
    expect(await ws.scratchEntries()).toEqual([]);
  });
});
