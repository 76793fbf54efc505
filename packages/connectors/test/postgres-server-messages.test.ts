// What a tenant's PostgreSQL sends is its to size: an error or a notice of hundreds of megabytes (`raise exception`
// with `repeat`) once took a gigabyte of the executor and, past V8's longest string, ended it from inside pg's socket
// handler. Each case runs the built driver in a Node process of its own with a 64 MiB heap, as the executor would:
// the statement fails with a clear error, and the process answers.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { usePgSandbox } from './support/pg-sandbox.js';

const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const sandbox = usePgSandbox();

beforeAll(async () => {
  await sandbox.admin.query(`create function loud(kind text, n int) returns int language plpgsql as $$
    begin
      if kind = 'error' then raise exception '%', repeat('x', n); end if;
      raise notice '%', repeat('y', n);
      return 1;
    end $$`);
});

/** The built driver's `execute` and a typed read of `sql`, each in a process with a 64 MiB heap: their outcomes. */
async function inSmallHeap(sql: string): Promise<{ execute: string; read: string }> {
  if (!existsSync(BUILT)) throw new Error('dist/index.js is missing: run `npm run build -w @conduit/connectors`');
  const script = `
    const { getDriver } = await import(${JSON.stringify(BUILT)});
    const driver = getDriver('postgres');
    const outcome = (p) => p.then((v) => 'ok ' + JSON.stringify(v), (e) => 'failed ' + e.errorClass + ': ' + e.message);
    const execute = await outcome(driver.execute(${JSON.stringify(sandbox.config)}, ${JSON.stringify(sql)}));
    const read = await outcome((async () => {
      for await (const batch of driver.read(${JSON.stringify(sandbox.config)}, { query: ${JSON.stringify(sql)} })) void batch;
    })());
    process.stdout.write(JSON.stringify({ execute, read }));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--max-old-space-size=64', '--input-type=module', '-e', script],
    // The test server listens on this machine, which the default network policy refuses.
    { env: { PATH: process.env['PATH'] ?? '', CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' }, maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(stdout) as { execute: string; read: string };
}

it('fails a statement whose error is 540 MB at its first bytes, without reading it', async () => {
  const outcome = await inSmallHeap("select loud('error', 540000000)");
  for (const how of [outcome.execute, outcome.read]) {
    expect(how).toMatch(
      /^failed config_error: the server sent an error of 5400\d{5} bytes, more than the 1048576 bytes read of one/,
    );
  }
}, 120_000);

it('fails a statement whose notice is over 1 MiB, and keeps errors and notices under it as they were', async () => {
  const outcome = await inSmallHeap("select loud('notice', 2000000)");
  expect(outcome.execute).toMatch(/^failed config_error: the server sent a notice of 2000\d{3} bytes/);
  const small = await inSmallHeap("select loud('error', 100)");
  expect(small.execute).toBe(`failed transient_error: ${'x'.repeat(100)} (SQLSTATE P0001)`);
  await expect(inSmallHeap("select loud('notice', 100)")).resolves.toEqual({
    execute: 'ok {"rows_affected":1}',
    read: 'ok undefined',
  });
}, 120_000);
