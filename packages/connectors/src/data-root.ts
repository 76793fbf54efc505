/**
 * Paths of file-based connectors (file, duckdb) live under the operator's data root (CONNECTOR_DATA_ROOT), in a
 * folder of the calling tenant: `<CONNECTOR_DATA_ROOT>/<tenant_id>/`. A path is relative to that folder and may not
 * leave it, neither with `..` nor through a symbolic link, so two tenants' connectors with the same relative path
 * never see each other's files. A call that does not say its tenant fails: there is no shared folder to fall back to.
 */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ConnectorError } from './connector-error.js';
import { connectorEnvironment } from './environment.js';

// Tenant ids are our own ids (`tnt_<ulid>`); anything else could name a path (`..`, `a/b`) rather than a folder.
const TENANT_FOLDER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

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

/** The tenant's own folder under the data root; a config_error when the call carries no (valid) tenant. */
export function tenantDataRoot(tenantId: string | undefined): string {
  if (tenantId === undefined || tenantId === '') {
    throw new ConnectorError('file-based connectors need the calling tenant; the call carried none', 'config_error');
  }
  if (!TENANT_FOLDER.test(tenantId)) throw new ConnectorError('the calling tenant id is not a valid folder name', 'config_error');
  return join(connectorEnvironment().dataRoot, tenantId);
}

/**
 * The absolute path of `parts` (joined, relative to the tenant's folder `root`), refused as a config_error when it
 * would leave that folder. `what` names the setting in messages.
 */
export async function resolveUnderDataRoot(root: string, what: string, ...parts: string[]): Promise<string> {
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

/** Checks again that a file found while listing (maybe a symbolic link) stays under the tenant's folder `root`. */
export async function assertUnderDataRoot(root: string, what: string, target: string): Promise<void> {
  const realRoot = await realpathOfNearest(root);
  if (!inside(realRoot, await realpathOfNearest(target))) {
    throw new ConnectorError(`${what} leaves the data root through a symbolic link`, 'config_error');
  }
}

/** A path relative to the tenant's folder, for messages (never the operator's absolute layout nor the tenant id). */
export function displayPath(root: string, target: string): string {
  const rel = relative(root, target);
  return rel === '' ? '.' : rel.split(sep).join('/');
}
