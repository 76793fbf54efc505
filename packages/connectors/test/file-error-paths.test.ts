import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConnectorError, getDriver, type ConnectorDriver, type Row } from '../src/index.js';
import { createDataRoot, type DataRootSandbox } from './support/data-root.js';
import { TEST_TENANT } from './support/tenant-driver.js';
import { openTestWorkspace, type TestWorkspace } from './support/run-workspace.js';

// File system errors a tenant can cause reach it as ConnectorErrors naming its own paths, never the data root's or
// the scratch folder's absolute paths nor the tenant id (docs/security.md, "Paths in messages").
const driver = getDriver('file') as Required<ConnectorDriver>;
const config = { path: 'errors' };
let sandbox: DataRootSandbox;
let ws: TestWorkspace;
let table = 0;

beforeAll(async () => {
  sandbox = await createDataRoot();
  ws = await openTestWorkspace();
  await ws.connection.run('create table one as select 1 as a');
  const home = join(sandbox.home, 'errors');
  await mkdir(join(home, 'links', 'dir'), { recursive: true });
  await writeFile(join(home, 'a.csv'), 'x,y\n1,2\n');
  await writeFile(join(home, 'links', 'c.csv'), 'x,y\n1,2\n');
  await writeFile(join(home, 'links', 'dir', 'b.csv'), 'x,y\n3,4\n');
  await symlink(join(home, 'links', 'dir'), join(home, 'links', 'link-to-dir.csv'));
});
afterAll(async () => {
  await ws?.close();
  await sandbox.remove();
});

const writeTable = (path: string, mode: 'append' | 'overwrite') =>
  driver.writeFromTable(config, { table: '', path, mode, tenantId: TEST_TENANT }, ws.target('one'));
const readTable = (path: string) =>
  driver.readIntoTable(config, { path, tenantId: TEST_TENANT }, ws.target(`t${table++}`));
async function* rows(): AsyncGenerator<Row[]> {
  yield [{ a: 1 }];
}
const writeRows = (path: string, mode: 'append' | 'overwrite') =>
  driver.write(config, { table: '', path, mode, tenantId: TEST_TENANT }, rows());
async function readRows(path: string): Promise<Row[]> {
  const out: Row[] = [];
  for await (const batch of driver.read(config, { path, tenantId: TEST_TENANT })) out.push(...batch);
  return out;
}

/** The error `work` fails with: a config_error whose message is `message` and names no server path nor the tenant. */
async function expectTenantWorded(work: Promise<unknown>, message: string): Promise<void> {
  const err: unknown = await work.then(
    () => new Error('expected a failure'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectorError);
  expect((err as ConnectorError).message).toBe(message);
  expect((err as ConnectorError).errorClass).toBe('config_error');
  for (const secret of [sandbox.root, ws.scratchDir, TEST_TENANT]) expect((err as Error).message).not.toContain(secret);
}

describe('file errors name the tenant path, not the server layout', () => {
  it('a sink over a folder of the same name (EISDIR on the rename into place)', async () => {
    expect(await writeTable('out.csv/', 'append')).toEqual({ rows_written: 1 });
    await expectTenantWorded(
      writeTable('out.csv', 'overwrite'),
      'cannot write "errors/out.csv": it is a folder, not a file',
    );
    await expectTenantWorded(
      writeRows('out.csv', 'overwrite'),
      'cannot write "errors/out.csv": it is a folder, not a file',
    );
  });

  it('a path through a file (ENOTDIR) for sinks and sources', async () => {
    const blocked = '"errors/a.csv/x.csv": "errors/a.csv" is a file, not a folder';
    await expectTenantWorded(writeTable('a.csv/x.csv', 'overwrite'), `cannot write ${blocked}`);
    await expectTenantWorded(writeRows('a.csv/x.csv', 'overwrite'), `cannot write ${blocked}`);
    await expectTenantWorded(readTable('a.csv/x.csv'), blocked);
    await expectTenantWorded(readRows('a.csv/x.csv'), blocked);
  });

  it('a glob does not take a symbolic link to a folder for a file (EISDIR on the copy into scratch)', async () => {
    expect(await readTable('links/*.csv')).toMatchObject({ rows: 1 });
    expect(await readRows('links/*.csv')).toEqual([{ x: '1', y: '2' }]);
    // Named, the link is a folder like any other: its files are read.
    expect(await readRows('links/link-to-dir.csv')).toEqual([{ x: '3', y: '4' }]);
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it('a missing file', async () => {
    await expectTenantWorded(readTable('missing.csv'), '"errors/missing.csv" does not exist');
  });
});
