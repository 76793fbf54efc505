import { NodeFailure, toNodeFailure } from './node-failure.js';
import { hideServerPaths, type ServerPaths } from './server-paths.js';

const paths: ServerPaths = {
  dataRoot: '/srv/conduit/data',
  dataDir: '/var/lib/conduit-executor/host-12',
  tenantId: 'tnt_01ABC',
};

describe('hideServerPaths', () => {
  it('shows a data root path relative to the tenant folder, without the tenant id', () => {
    expect(hideServerPaths("ENOTDIR: not a directory, realpath '/srv/conduit/data/tnt_01ABC/a.csv/x.csv'", paths)).toBe(
      "ENOTDIR: not a directory, realpath '<data>/a.csv/x.csv'",
    );
    // Another tenant's folder is hidden as well, and the root alone.
    expect(hideServerPaths('open "/srv/conduit/data/tnt_OTHER/b.csv" and /srv/conduit/data', paths)).toBe(
      'open "<data>/b.csv" and <data>',
    );
  });

  it('hides a whole path under the executor data folder, and the tenant id anywhere', () => {
    const message =
      "EISDIR: illegal operation on a directory, copyfile '/srv/conduit/data/tnt_01ABC/dir' -> '/var/lib/conduit-executor/host-12/run_1-ab/scratch/file-read-1/000001.csv' (tenant tnt_01ABC)";
    expect(hideServerPaths(message, paths)).toBe(
      "EISDIR: illegal operation on a directory, copyfile '<data>/dir' -> '<scratch>' (tenant <tenant>)",
    );
    expect(
      hideServerPaths(
        'IO Error: Could not write file "/var/lib/conduit-executor/host-12/r/scratch/x.csv": No space left',
        paths,
      ),
    ).toBe('IO Error: Could not write file "<scratch>": No space left');
  });

  it('leaves other paths and folders that only share a prefix alone; a trailing slash in a setting changes nothing', () => {
    const message = "open '/srv/conduit/data2/x' and '/etc/hosts'";
    expect(hideServerPaths(message, paths)).toBe(message);
    expect(hideServerPaths('at /srv/conduit/data/tnt_01ABC/a.csv', { ...paths, dataRoot: '/srv/conduit/data/' })).toBe(
      'at <data>/a.csv',
    );
  });

  it('hides the deeper folder first when one holds the other', () => {
    const nested = { dataRoot: '/srv/d', dataDir: '/srv/d/executor' };
    expect(hideServerPaths("x '/srv/d/executor/run/scratch/f.csv' y '/srv/d/tnt_1/f.csv'", nested)).toBe(
      "x '<scratch>' y '<data>/f.csv'",
    );
  });
});

describe('toNodeFailure with server paths', () => {
  it('hides them in any message, keeping whether a retry can help', () => {
    const failure = toNodeFailure(new Error("EIO: i/o error, read '/srv/conduit/data/tnt_01ABC/a.csv'"), paths);
    expect(failure).toMatchObject({ message: "EIO: i/o error, read '<data>/a.csv'", retryable: true });
    const own = new NodeFailure('Binder Error: column "tnt_01ABC" not found', false, 'x');
    expect(toNodeFailure(own, paths)).toMatchObject({
      message: 'Binder Error: column "<tenant>" not found',
      retryable: false,
      code: 'x',
    });
  });
});
