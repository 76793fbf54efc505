/** A throwaway CONNECTOR_DATA_ROOT for one test suite, removed afterwards. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DataRootSandbox {
  root: string;
  remove(): Promise<void>;
}

export async function createDataRoot(): Promise<DataRootSandbox> {
  const root = await mkdtemp(join(tmpdir(), 'conduit-connectors-root-'));
  const previous = process.env['CONNECTOR_DATA_ROOT'];
  process.env['CONNECTOR_DATA_ROOT'] = root;
  return {
    root,
    async remove() {
      if (previous === undefined) delete process.env['CONNECTOR_DATA_ROOT'];
      else process.env['CONNECTOR_DATA_ROOT'] = previous;
      await rm(root, { recursive: true, force: true });
    },
  };
}
