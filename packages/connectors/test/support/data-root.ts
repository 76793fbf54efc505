/** A throwaway CONNECTOR_DATA_ROOT for one test suite, removed afterwards. */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_TENANT } from './tenant-driver.js';

export interface DataRootSandbox {
  root: string;
  /** The folder of the test tenant (support/tenant-driver.ts) under the root, where its connectors' paths resolve. */
  home: string;
  remove(): Promise<void>;
}

export async function createDataRoot(): Promise<DataRootSandbox> {
  const root = await mkdtemp(join(tmpdir(), 'conduit-connectors-root-'));
  const home = join(root, TEST_TENANT);
  await mkdir(home);
  const previous = process.env['CONNECTOR_DATA_ROOT'];
  process.env['CONNECTOR_DATA_ROOT'] = root;
  return {
    root,
    home,
    async remove() {
      if (previous === undefined) delete process.env['CONNECTOR_DATA_ROOT'];
      else process.env['CONNECTOR_DATA_ROOT'] = previous;
      await rm(root, { recursive: true, force: true });
    },
  };
}
