/**
 * How a path under a tenant's folder appears in messages: relative to that folder, never the operator's absolute
 * layout nor the tenant id. Node's file system errors name absolute paths, so they become ConnectorErrors in those
 * words: a user's mistake (a file where a folder is needed, a missing file) is a config_error, a failing or full
 * disk a transient_error (docs/security.md, "Paths in messages").
 */
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { ConnectorError } from './connector-error.js';
import type { ErrorClass } from './types.js';

/** A path relative to the tenant's folder, for messages (never the operator's absolute layout nor the tenant id). */
export function displayPath(root: string, target: string): string {
  const rel = relative(root, target);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

// Conditions another attempt may not meet: the disk, the file system or the process's limits, not the user's paths.
const TRANSIENT_REASONS: Readonly<Record<string, string>> = {
  EIO: 'an input/output error of the disk',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EBUSY: 'the file is busy',
  EAGAIN: 'the file is temporarily unavailable',
  ETIMEDOUT: 'the file system timed out',
  ESTALE: 'the file system handle went stale',
};

const USER_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'does not exist',
  EISDIR: 'is a folder, not a file',
  ENOTEMPTY: 'is a folder that is not empty',
  EEXIST: 'already exists',
  ENOTDIR: 'has a part that is a file, not a folder',
  EACCES: 'cannot be accessed (permission denied)',
  EPERM: 'cannot be changed (operation not permitted)',
  EROFS: 'is on a read-only file system',
  ELOOP: 'goes through too many symbolic links',
  ENAMETOOLONG: 'is too long a name',
};

/** The error's code when it is one of Node's file system errors (their messages name absolute paths). */
export function fileSystemErrorCode(err: unknown): string | undefined {
  const { code, syscall } = (err ?? {}) as { code?: unknown; syscall?: unknown };
  return typeof code === 'string' && typeof syscall === 'string' ? code : undefined;
}

/** The plain-words reason and class of a file system error `code` (a verb phrase for a user's mistake, else a noun). */
export function fileSystemReason(code: string): { reason: string; errorClass: ErrorClass } {
  const transient = TRANSIENT_REASONS[code];
  if (transient !== undefined) return { reason: transient, errorClass: 'transient_error' };
  const user = USER_REASONS[code];
  if (user !== undefined) return { reason: user, errorClass: 'config_error' };
  return { reason: `file system error ${code}`, errorClass: 'transient_error' };
}

/**
 * `err` as the tenant may see it, naming `target` (the path the tenant named, under its folder `root`): a Node file
 * system error becomes a ConnectorError; any other error is returned as it is. `doing` prefixes the message
 * (e.g. `cannot write`).
 */
export async function fileSystemError(err: unknown, root: string, target: string, doing?: string): Promise<unknown> {
  const code = fileSystemErrorCode(err);
  if (code === undefined) return err;
  const named = `${doing === undefined ? '' : `${doing} `}"${displayPath(root, target)}"`;
  const blocking = code === 'ENOTDIR' || code === 'EEXIST' ? await fileInTheWay(root, target) : undefined;
  if (blocking !== undefined)
    return new ConnectorError(`${named}: "${displayPath(root, blocking)}" is a file, not a folder`, 'config_error');
  const { reason, errorClass } = fileSystemReason(code);
  if (errorClass === 'transient_error') return new ConnectorError(`${named}: ${reason}`, errorClass);
  return new ConnectorError(doing === undefined ? `${named} ${reason}` : `${named}: it ${reason}`, errorClass);
}

/** The nearest existing path from `target` up to `root` when it is not a folder (where a folder was needed). */
async function fileInTheWay(root: string, target: string): Promise<string | undefined> {
  for (let path = target; ; path = dirname(path)) {
    const rel = relative(root, path);
    if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined) return info.isDirectory() ? undefined : path;
    if (rel === '') return undefined;
  }
}
