// A row sink (http here; queues alike) gets the run's rows as JS values, which take several times their DuckDB size
// in the heap every run on the executor shares: a chunk of 2,048 rows each holding a list of 5,000 one-field structs
// (a few MB in DuckDB) ran the executor's heap out and ended it. What the rows take as JS values is estimated in DuckDB first
// (heapSizedSelect): such a chunk fails its node, within the run's memory, before any row is converted, and ordinary
// rows still go, in batches and requests of bounded size.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { TEST_TENANT, nodeOf, runDag } from './support/engine-harness.js';

const dataRoot = join(tmpdir(), `conduit-row-sink-${randomUUID()}`);
const bodies: number[] = [];
let server: Server;
let previous: { root?: string; privateNetworks?: string };

beforeAll(async () => {
  await mkdir(join(dataRoot, TEST_TENANT), { recursive: true });
  await writeFile(join(dataRoot, TEST_TENANT, 'one.csv'), 'a\n1\n');
  previous = {
    root: process.env['CONNECTOR_DATA_ROOT'],
    privateNetworks: process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'],
  };
  process.env['CONNECTOR_DATA_ROOT'] = dataRoot;
  process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'] = 'true';
  server = createServer((req, res) => {
    let size = 0;
    req.on('data', (d: Buffer) => (size += d.length));
    req.on('end', () => {
      bodies.push(size);
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dataRoot, { recursive: true, force: true });
  for (const [name, value] of [
    ['CONNECTOR_DATA_ROOT', previous.root],
    ['CONNECTOR_ALLOW_PRIVATE_NETWORKS', previous.privateNetworks],
  ] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
});

function dagOf(sql: string, batchSize: number) {
  return {
    nodes: [
      { id: 'one', type: 'source', config: { connector_id: 'con_file', path: 'one.csv' } },
      { id: 'rows', type: 'transform', config: { sql } },
      { id: 'out', type: 'sink', config: { connector_id: 'con_http', path: '/ingest', batch_size: batchSize } },
    ],
    edges: [
      { from: 'one', to: 'rows' },
      { from: 'rows', to: 'out' },
    ],
  };
}

const connectors = () => [
  { id: 'con_file', type: 'file', config: {} },
  { id: 'con_http', type: 'http', config: { base_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } },
];

it('fails a node whose chunk of rows is too large as JS values, before converting it, and sends nothing', async () => {
  bodies.length = 0;
  const heapBefore = process.memoryUsage().heapUsed;
  const run = await runDag(
    dagOf("select i, list_transform(range(5000), x -> {'a': true}) as b from one, range(2048) t(i)", 1),
    {},
    { connectors: connectors() },
  );
  expect(nodeOf(run, 'rows').status).toBe('succeeded');
  expect(nodeOf(run, 'out')).toMatchObject({
    status: 'failed',
    error: { message: expect.stringMatching(/more memory than a run may use|bytes as JS values/) },
  });
  expect(bodies).toEqual([]);
  // Converted, the chunk took GBs of the heap; measured in DuckDB, nothing of it reaches the heap.
  expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(256 * 1024 * 1024);
});

it('sends ordinary rows, each request within 8 MiB whatever batch_size says', async () => {
  bodies.length = 0;
  const run = await runDag(
    dagOf("select i, repeat('x', 100000) as doc from one, range(300) t(i)", 1000),
    {},
    {
      connectors: connectors(),
    },
  );
  expect(nodeOf(run, 'out').error).toBeNull();
  expect(nodeOf(run, 'out')).toMatchObject({ status: 'succeeded', rows_out: 300 });
  expect(bodies.length).toBeGreaterThanOrEqual(4);
  for (const size of bodies) expect(size).toBeLessThanOrEqual(8 * 1024 * 1024 + 300 * 64);
  expect(bodies.reduce((a, b) => a + b, 0)).toBeGreaterThan(300 * 100_000);
});
