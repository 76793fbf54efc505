import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import duckdb from '@duckdb/node-api';
import S3rver from 's3rver';
import { createConnector, extractLoadDag, nodeOf, runDagToEnd } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';

// Object store, warehouse and file categories end to end: S3 CSV objects into DuckDB, and PostgreSQL out to JSON lines.
// File-based connectors work in their tenant's folder of the data root: <CONNECTOR_DATA_ROOT>/<tenant_id>/.
const TENANT = `tnt_${'0'.repeat(26)}`;
let dataRoot: string;
let s3Directory: string;
let s3Server: S3rver;
let s3Endpoint: string;
const bucket = 'conduit-e2e';

beforeAll(async () => {
  dataRoot = await mkdtemp(join(tmpdir(), 'conduit-e2e-data-'));
  s3Directory = await mkdtemp(join(tmpdir(), 'conduit-e2e-s3-'));
  s3Server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: s3Directory,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const address = (await s3Server.run()) as { port: number };
  s3Endpoint = `http://127.0.0.1:${address.port}`;
});

const target = useTargetStack({
  // The bootstrap key's tenant, named here so the test knows its folder.
  env: () => Promise.resolve({ CONNECTOR_DATA_ROOT: dataRoot, BOOTSTRAP_TENANT_ID: TENANT }),
});

afterAll(async () => {
  await s3Server?.close();
  await rm(s3Directory, { recursive: true, force: true });
  await rm(dataRoot, { recursive: true, force: true });
});

describe('s3 CSV -> duckdb', () => {
  it("loads every CSV object under a prefix into a DuckDB table in the tenant's folder of the data root", async () => {
    const client = new S3Client({
      endpoint: s3Endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    for (const day of [1, 2, 3]) {
      const lines = Array.from({ length: 400 }, (_, i) => `${day * 1000 + i},sensor-${i % 7},${(i / 4).toFixed(2)}`);
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `readings/2024-01-0${day}.csv`,
          Body: `id,sensor,value\n${lines.join('\n')}\n`,
        }),
      );
    }
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'readings/README.txt', Body: 'not data' }));
    client.destroy();

    const s3Connector = await createConnector(target.stack, 's3', {
      endpoint: s3Endpoint,
      region: 'us-east-1',
      bucket,
      access_key_id: 'S3RVER',
      secret_access_key: 'S3RVER',
      force_path_style: true,
    });
    const warehouse = await createConnector(target.stack, 'duckdb', { path: 'warehouse/e2e.duckdb' }, 'wh');
    const dag = extractLoadDag(
      { connector_id: s3Connector, path: 'readings/', format: 'csv' },
      { connector_id: warehouse, table: 'readings', mode: 'overwrite' },
    );
    const run = await runDagToEnd(target.stack, dag, 60_000);
    expect(run.status).toBe('succeeded');
    expect(nodeOf(run, 'extract')).toMatchObject({ status: 'succeeded', rows_out: 1200 });

    const instance = await duckdb.DuckDBInstance.create(join(dataRoot, TENANT, 'warehouse/e2e.duckdb'), {
      access_mode: 'READ_ONLY',
    });
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(
        `select count(*)::int, count(distinct sensor)::int, min(id::int), max(id::int) from readings`,
      );
      expect(reader.getRows()).toEqual([[1200, 7, 1000, 3399]]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});

describe('postgres -> file (JSON lines)', () => {
  it("exports a PostgreSQL table as a JSON lines file in the tenant's folder of the data root", async () => {
    await target.db.query('create table events (id int primary key, kind text, payload jsonb, at timestamptz)');
    await target.db.query(
      `insert into events select g, case when g % 2 = 0 then 'even' else 'odd' end, jsonb_build_object('n', g),
              timestamptz '2024-03-01 00:00:00+00' + g * interval '1 second' from generate_series(1, 1500) g`,
    );
    const files = await createConnector(target.stack, 'file', { path: 'exports' }, 'files');
    const dag = extractLoadDag(
      { connector_id: target.connectorId, query: 'select * from events order by id' },
      { connector_id: files, path: 'events/events.jsonl', mode: 'overwrite' },
    );
    const run = await runDagToEnd(target.stack, dag, 60_000);
    expect(run.status).toBe('succeeded');
    expect(nodeOf(run, 'load')).toMatchObject({ status: 'succeeded', rows_out: 1500 });

    expect(await readdir(join(dataRoot, TENANT, 'exports/events'))).toEqual(['events.jsonl']);
    const lines = (await readFile(join(dataRoot, TENANT, 'exports/events/events.jsonl'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1500);
    const rows = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .sort((a, b) => Number(a['id']) - Number(b['id']));
    // The typed sink (docs/type-mapping.md): a timestamptz as its instant in UTC, a jsonb value embedded as JSON.
    expect(rows[0]).toEqual({ id: 1, kind: 'odd', payload: { n: 1 }, at: '2024-03-01 00:00:01+00' });
    expect(rows[1499]).toEqual({ id: 1500, kind: 'even', payload: { n: 1500 }, at: '2024-03-01 00:25:00+00' });
  });
});
