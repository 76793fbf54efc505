import { randomUUID } from 'node:crypto';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { startS3Server } from '@conduit/testing';
import { getDriver, type ConnectorDriver, type Row } from '../src/index.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { suiteFixture } from './support/suite-fixture.js';
import { batchesOf } from './support/driver-batches.js';
import { expectAuthenticateRefused, expectUnreachable } from './support/driver-checks.js';
import { checkNames, expectPassed } from './support/test-connection.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('s3') as ConnectorDriver;
const s3 = suiteFixture(startS3Server, (server) => server.close());

async function collect(batches: AsyncIterable<Row[]>): Promise<Row[][]> {
  const out: Row[][] = [];
  for await (const batch of batches) out.push(batch);
  return out;
}

describe('s3 read and write', () => {
  it('reads a CSV object and every data object under a prefix, in key order', async () => {
    await s3.put('in/a.csv', 'id,name\n1,ann\n2,\n');
    await s3.put('in/b.jsonl', '{"id":3,"name":"cy"}\n');
    await s3.put('in/notes.txt', 'not data');
    expect((await collect(driver.read!(s3.config(), { path: 'in/a.csv' }))).flat()).toEqual([
      { id: '1', name: 'ann' },
      { id: '2', name: null },
    ]);
    expect((await collect(driver.read!(s3.config(), { path: 'in' }))).flat()).toEqual([
      { id: '1', name: 'ann' },
      { id: '2', name: null },
      { id: 3, name: 'cy' },
    ]);
    expect((await collect(driver.read!(s3.config({ prefix: 'in' }), { path: '*.jsonl' }))).flat()).toEqual([
      { id: 3, name: 'cy' },
    ]);
  });

  it('writes JSON lines and CSV objects and reads them back', async () => {
    const rows: Row[] = [
      { id: 1, tag: 'x,"y"' },
      { id: 2, tag: null },
    ];
    expect(await driver.write!(s3.config(), { table: 'out/rows.jsonl', mode: 'overwrite' }, batchesOf(rows))).toEqual({
      rows_written: 2,
    });
    expect(await s3.text('out/rows.jsonl')).toBe('{"id":1,"tag":"x,\\"y\\""}\n{"id":2,"tag":null}\n');
    await driver.write!(s3.config(), { table: 'out/rows.csv', mode: 'overwrite' }, batchesOf(rows));
    expect(await s3.text('out/rows.csv')).toBe('id,tag\n1,"x,""y"""\n2,\n');
    expect((await collect(driver.read!(s3.config(), { path: 'out/rows.csv' }))).flat()).toEqual([
      { id: '1', tag: 'x,"y"' },
      { id: '2', tag: null },
    ]);
  });

  it('writes and reads Parquet through ranged reads', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      id: i,
      name: `n${i}`,
      at: new Date(Date.UTC(2024, 5, 1, 0, 0, i)),
    }));
    await driver.write!(
      s3.config(),
      { table: '', path: 'pq/data.parquet', mode: 'overwrite' },
      batchesOf(rows.slice(0, 1000), rows.slice(1000)),
    );
    const read = await collect(driver.read!(s3.config(), { path: 'pq/', batchSize: 1000 }));
    expect(read.map((b) => b.length)).toEqual([1000, 1000, 1000]);
    expect(read.flat()).toEqual(rows);
  });

  it('appends part objects under a prefix and overwrites them', async () => {
    const cfg = s3.config({ prefix: 'parts/', format: 'jsonl' });
    await driver.write!(cfg, { table: 'daily', mode: 'append' }, batchesOf([{ n: 1 }]));
    await driver.write!(cfg, { table: 'daily', mode: 'append' }, batchesOf([{ n: 2 }]));
    expect((await collect(driver.read!(cfg, { path: 'daily' }))).flat()).toEqual([{ n: 1 }, { n: 2 }]);
    await driver.write!(cfg, { table: 'daily', mode: 'overwrite' }, batchesOf([{ n: 3 }]));
    expect((await collect(driver.read!(cfg, { path: 'daily' }))).flat()).toEqual([{ n: 3 }]);
  });

  it('uploads a large write in parts (multipart upload)', async () => {
    const cfg = s3.config({ part_size_mb: 5 });
    const batches = (async function* () {
      for (let b = 0; b < 12; b++) {
        yield Array.from({ length: 1000 }, (_, i) => ({ id: b * 1000 + i, pad: 'p'.repeat(1000) }));
      }
    })();
    expect(await driver.write!(cfg, { table: 'big/large.csv', mode: 'overwrite' }, batches)).toEqual({
      rows_written: 12_000,
    });
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'big/large.csv' }));
    expect(head.ContentLength).toBeGreaterThan(10 * 1024 * 1024);
    expect(s3.uploadedParts('big/large.csv')).toHaveLength(3); // 5 + 5 + ~1.5 MB parts of one multipart upload
    expect(s3.requests.some((r) => r.startsWith('POST /conduit-test/big/large.csv?uploads'))).toBe(true);
    const read = (await collect(driver.read!(cfg, { path: 'big/large.csv' }))).flat();
    expect(read).toHaveLength(12_000);
    expect(read[11_999]).toEqual({ id: '11999', pad: 'p'.repeat(1000) });
  });

  it('says clearly what is missing: an object, a bucket', async () => {
    await expect(collect(driver.read!(s3.config(), { path: 'nothing/here.csv' }))).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/no object "nothing\/here.csv"/),
    });
    await expect(
      collect(driver.read!(s3.config({ bucket: 'no-such-bucket' }), { path: 'x.csv' })),
    ).rejects.toMatchObject({
      errorClass: 'config_error',
    });
    await expect(
      driver.write!(s3.config({ bucket: 'no-such-bucket' }), { table: 'x.csv', mode: 'append' }, batchesOf([{ a: 1 }])),
    ).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/bucket "no-such-bucket" does not exist|NoSuchBucket/),
    });
  });
});

describe('s3 Test Connection', () => {
  it('is an object_store type whose secret key is secret', () => {
    expect(driver.info).toMatchObject({ type: 's3', category: 'object_store', secret_fields: ['secret_access_key'] });
  });

  it('passes every check against the server', async () => {
    expectPassed(await driver.test(s3.config()), [
      'resolve',
      'network_policy',
      'connect',
      'authenticate',
      'bucket',
      'permission',
    ]);
  });

  it('calls a missing bucket a config_error at bucket', async () => {
    const result = await driver.test(s3.config({ bucket: 'missing-bucket' }));
    expect(result).toMatchObject({
      ok: false,
      error_class: 'config_error',
      message: 'bucket "missing-bucket" does not exist',
    });
    expect(checkNames(result)).toEqual([
      'resolve:ok',
      'network_policy:ok',
      'connect:ok',
      'authenticate:ok',
      'bucket:failed',
    ]);
  });

  // s3rver does not verify SigV4 signatures, so a wrong secret is covered by the classifier's unit spec.
  it('calls unknown credentials a config_error at authenticate without showing the secret', async () => {
    const secret = `wrong-${randomUUID()}`;
    const unknownKey = await driver.test(s3.config({ access_key_id: 'NOBODY', secret_access_key: secret }));
    expectAuthenticateRefused(unknownKey, secret);
    expect(unknownKey.message).toBe('the access key id is not known to the server');
  });

  it('calls an unknown host a config_error and a closed port a transient_error', async () => {
    await expectUnreachable(driver, (host, port) => s3.config({ endpoint: `http://${host}:${port}` }));
  });
});
