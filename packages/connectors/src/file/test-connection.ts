/** Test Connection for file: the folder resolves under the data root, exists, and can be read and written. */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { invalidConfigResult } from '../config-parser.js';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { ConnectorError } from '../connector-error.js';
import { displayPath, resolveUnderDataRoot, tenantDataRoot } from '../data-root.js';
import type { ErrorClass, TestOptions, TestResult } from '../types.js';
import { parseFileConfig, type FileConfig } from './file.config.js';

export async function testFile(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: FileConfig;
  try {
    cfg = parseFileConfig(config);
  } catch (err) {
    return invalidConfigResult(err);
  }
  const details: Record<string, unknown> = {};
  let root = '';
  let folder = '';
  const steps: CheckStep[] = [
    {
      name: 'resolve',
      async run() {
        root = tenantDataRoot(opts.tenantId);
        folder = await resolveUnderDataRoot(root, 'path', cfg.path);
        details['path'] = displayPath(root, folder);
        return `"${displayPath(root, folder)}" is under the data root`;
      },
    },
    {
      name: 'folder',
      async run() {
        const info = await stat(folder).catch(() => null);
        if (!info) throw new ConnectorError(`folder "${displayPath(root, folder)}" does not exist`, 'config_error');
        if (!info.isDirectory())
          throw new ConnectorError(`"${displayPath(root, folder)}" is not a folder`, 'config_error');
        return `folder "${displayPath(root, folder)}" exists`;
      },
    },
    {
      name: 'permission',
      async run() {
        await access(folder, constants.R_OK | constants.X_OK).catch(() => {
          throw new ConnectorError(`folder "${displayPath(root, folder)}" cannot be read`, 'config_error');
        });
        const writable = await access(folder, constants.W_OK).then(
          () => true,
          () => false,
        );
        details['writable'] = writable;
        return writable ? 'readable and writable' : 'readable, not writable';
      },
    },
  ];
  return runChecks(
    {
      steps,
      classify: classifyFileError,
      details,
      secrets: [],
      successMessage: (d) => `folder "${String(d['path'])}" is ready`,
    },
    opts,
  );
}

export function classifyFileError(err: unknown): { error_class: ErrorClass; message: string } {
  if (err instanceof ConnectorError) return { error_class: err.errorClass, message: err.message };
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  const transient =
    code === 'EMFILE' || code === 'ENFILE' || code === 'EBUSY' || code === 'EAGAIN' || code === 'ENOSPC';
  return { error_class: transient ? 'transient_error' : 'config_error', message };
}
