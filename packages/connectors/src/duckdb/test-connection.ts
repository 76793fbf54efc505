/** Test Connection for duckdb: the file resolves under the data root, opens, and its schema exists. */
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { invalidConfigResult } from '../config-parser.js';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { ConnectorError } from '../connector-error.js';
import { displayPath, resolveUnderDataRoot, tenantDataRoot } from '../data-root.js';
import type { TestOptions, TestResult } from '../types.js';
import { classifyDuckdbError, withDatabase } from './database.js';
import { fileWorkBase, inWorker } from './file-worker/workers.js';
import { parseDuckdbConfig, type DuckdbConfig } from './duckdb.config.js';
import { readAll } from './read-all.js';

export async function testDuckdb(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: DuckdbConfig;
  try {
    cfg = parseDuckdbConfig(config);
  } catch (err) {
    return invalidConfigResult(err);
  }
  const details: Record<string, unknown> = {};
  let root = '';
  let file = '';
  let exists = false;
  const steps: CheckStep[] = [
    {
      name: 'resolve',
      async run() {
        root = tenantDataRoot(opts.tenantId);
        file = await resolveUnderDataRoot(root, 'path', cfg.path);
        details['path'] = displayPath(root, file);
        return `"${displayPath(root, file)}" is under the data root`;
      },
    },
    {
      name: 'file',
      async run() {
        exists = (await stat(file).catch(() => null))?.isFile() ?? false;
        details['exists'] = exists;
        if (exists) return `database file "${displayPath(root, file)}" exists`;
        const folder = await stat(dirname(file)).catch(() => null);
        // The tenant's own folder is made by the first write, like the file.
        if (!folder?.isDirectory() && dirname(file) !== root)
          throw new ConnectorError(`folder of "${displayPath(root, file)}" does not exist`, 'config_error');
        return `database file "${displayPath(root, file)}" will be created on the first write`;
      },
    },
    {
      name: 'open',
      async run(signal) {
        if (!exists) return 'nothing to open yet';
        const { version, schemas } = await inWorker<OpenedFile>(
          { op: 'open', cfg, ...fileWorkBase(opts.tenantId, undefined) },
          signal,
        );
        details['server_version'] = version;
        if (schemas === 0) throw new ConnectorError(`schema "${cfg.schema}" does not exist`, 'config_error');
        return `opened with DuckDB ${version}`;
      },
    },
  ];
  return runChecks(
    {
      steps,
      classify: classifyDuckdbError,
      details,
      secrets: [],
      successMessage: (d) => `DuckDB database "${String(d['path'])}" is ready`,
    },
    opts,
  );
}

/** What opening the file showed: DuckDB's version, and how many schemas of the connector's name it holds. */
export interface OpenedFile {
  version: string;
  schemas: number;
}

/** In the file worker: the file opened read-only, as a run opens it. */
export async function openFile(
  cfg: DuckdbConfig,
  tenantId: string | undefined,
  signal?: AbortSignal,
): Promise<OpenedFile> {
  return withDatabase(cfg, { mode: 'read', tenantId }, signal, async (connection) => {
    const reader = await readAll(
      connection.run(
        `select version(), (select count(*) from duckdb_schemas() where schema_name = '${cfg.schema.replace(/'/g, "''")}')`,
      ),
    );
    const [version, schemas] = reader.getRows()[0] ?? [];
    return { version: String(version), schemas: Number(schemas) };
  });
}
