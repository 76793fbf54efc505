/**
 * Paths of file-based connectors (file, duckdb) live under the operator's data root (CONNECTOR_DATA_ROOT): a path
 * is relative to it and may not leave it, neither with `..` nor through a symbolic link.
 */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ConnectorError } from './connector-error.js';
import { connectorEnvironment } from './environment.js';

const inside = (root: string, target: string): boolean => {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/** The real path of `target`, or of its deepest existing ancestor joined with the rest (for files not yet written). */
async function realpathOfNearest(target: string): Promise<string> {
  try {
    return await realpath(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const parent = dirname(target);
    if (parent === target) return target;
    return resolve(await realpathOfNearest(parent), relative(parent, target));
  }
}

/**
 * The absolute path of `parts` (joined, relative to the data root), refused as a config_error when it would leave
 * the root. `what` names the setting in messages.
 */
export async function resolveUnderDataRoot(what: string, ...parts: string[]): Promise<string> {
  const root = connectorEnvironment().dataRoot;
  for (const part of parts) {
    if (isAbsolute(part)) throw new ConnectorError(`${what} must be relative to the data root, not absolute`, 'config_error');
  }
  const target = resolve(root, ...parts);
  if (!inside(root, target)) throw new ConnectorError(`${what} leaves the data root`, 'config_error');
  const realRoot = await realpathOfNearest(root);
  if (!inside(realRoot, await realpathOfNearest(target))) {
    throw new ConnectorError(`${what} leaves the data root through a symbolic link`, 'config_error');
  }
  return target;
}

/** Checks again that a file found while listing (maybe a symbolic link) stays under the data root. */
export async function assertUnderDataRoot(what: string, target: string): Promise<void> {
  const realRoot = await realpathOfNearest(connectorEnvironment().dataRoot);
  if (!inside(realRoot, await realpathOfNearest(target))) {
    throw new ConnectorError(`${what} leaves the data root through a symbolic link`, 'config_error');
  }
}

/** A path relative to the data root, for messages (never the operator's absolute layout). */
export function displayPath(target: string): string {
  const rel = relative(connectorEnvironment().dataRoot, target);
  return rel === '' ? '.' : rel.split(sep).join('/');
}
