// A typed read brings at most the run's scratch limit into its scratch folder (formats/scratch-limit.ts): an endless
// S3 object or endless paging fails fast as a config_error naming the limit and its setting, and leaves nothing behind.
import { createServer, type Server } from 'node:http';
import { startS3Server } from '@conduit/testing';
import { getDriver, type ConnectorDriver, type DuckDBTable } from '../src/index.js';
import { failureOf } from './support/driver-checks.js';
import { sendJson, startHttpFixture } from './support/http-fixture.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { openTestWorkspace } from './support/run-workspace.js';
import { suiteFixture } from './support/suite-fixture.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const KiB = 1024;
const MiB = 1024 * KiB;
const s3Driver = getDriver('s3') as Required<ConnectorDriver>;
const httpDriver = getDriver('http') as Required<ConnectorDriver>;
const LIMIT_MESSAGE = /more than 1MiB into the run's scratch folder.*\(RUN_SCRATCH_LIMIT\)/;
const ws = suiteFixture(
  () => openTestWorkspace(),
  (workspace) => workspace.close(),
);

/** The run's table with a 1 MiB scratch limit. */
const limited = (table: string): DuckDBTable => ({
  ...ws.target(table),
  buffers: { csvMaxLineBytes: MiB, csvBufferBytes: 2 * MiB, streamChunkBytes: 64 * KiB, scratchLimitBytes: MiB },
});

function expectLimitError(err: Error & { errorClass?: string }): void {
  expect(err).toBeInstanceOf(Error);
  expect(err.errorClass).toBe('config_error');
  expect(err.message).toMatch(LIMIT_MESSAGE);
  expect(err.message).not.toContain(ws.scratchDir);
}

describe('s3 typed read past the scratch limit', () => {
  const s3 = suiteFixture(startS3Server, (server) => server.close());

  it('refuses an object whose length is past the limit, and a prefix whose objects together pass it', async () => {
    await s3.put('big/one.csv', Buffer.from(`a\n${'1\n'.repeat(MiB)}`));
    expectLimitError(await failureOf(s3Driver.readIntoTable(s3.config(), { path: 'big/one.csv' }, limited('s3_big'))));
    expect(await ws.scratchEntries()).toEqual([]);

    // Each under the limit, together over it: the second is refused.
    const part = Buffer.from(`a\n${'1\n'.repeat(300 * KiB)}`);
    await s3.put('parts/1.csv', part);
    await s3.put('parts/2.csv', part);
    expectLimitError(
      await failureOf(s3Driver.readIntoTable(s3.config({ prefix: 'parts' }), { path: '*.csv' }, limited('s3_parts'))),
    );
    expect(await ws.scratchEntries()).toEqual([]);
    // Within the limit the same read works, and what the failed reads took was given back.
    const one = await s3Driver.readIntoTable(s3.config({ prefix: 'parts' }), { path: '1.csv' }, limited('s3_one'));
    expect(one.rows).toBe(300 * KiB);
  });

  it('stops an endless object with no length, as it streams in', async () => {
    // An S3-compatible endpoint of the tenant's: HEAD claims 10 bytes, GET streams without end (at most 256 MiB here).
    let sent = 0;
    const server: Server = createServer((req, res) => {
      if (req.method === 'HEAD') {
        res.writeHead(200, { 'content-length': '10' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/csv' });
      const chunk = Buffer.from('1\n'.repeat(32 * KiB));
      const pump = () => {
        while (sent < 256 * MiB && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const cfg = {
        endpoint,
        region: 'us-east-1',
        bucket: 'tenant-bucket',
        access_key_id: 'a',
        secret_access_key: 's',
        force_path_style: true,
      };
      expectLimitError(await failureOf(s3Driver.readIntoTable(cfg, { path: 'endless.csv' }, limited('s3_endless'))));
      // Failed at the limit, not at the end of the stream (what the sockets held in flight aside).
      expect(sent).toBeLessThan(32 * MiB);
      expect(await ws.scratchEntries()).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('http typed read past the scratch limit', () => {
  const api = suiteFixture(startHttpFixture, (fixture) => fixture.close());

  it('stops endless paging (max_pages counts pages, not bytes) at the limit', async () => {
    let pages = 0;
    api.route('/endless', (_req, res) => {
      pages += 1;
      sendJson(
        res,
        200,
        Array.from({ length: 100 }, (_, k) => ({ id: k, note: 'x'.repeat(1000) })),
      );
    });
    const read = httpDriver.readIntoTable(
      { base_url: api.baseUrl },
      { path: '/endless', pagination: 'page', per_page: 100 },
      limited('http_endless'),
    );
    expectLimitError(await failureOf(read));
    // About 100 KiB a page: the 11th passes 1 MiB.
    expect(pages).toBe(11);
    expect(await ws.scratchEntries()).toEqual([]);
    expect(await ws.rows(`select count(*)::INTEGER from duckdb_tables() where table_name = 'http_endless'`)).toEqual([
      [0],
    ]);
  });
});
