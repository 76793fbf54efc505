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
import { fileSystemError } from './path-messages.js';

export { displayPath } from './path-messages.js';

// Tenant ids are our own ids (`tnt_<ulid>`); anything else could name a path (`..`, `a/b`) rather than a folder.
const TENANT_FOLDER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const inside = (root: string, target: string): boolean => {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/**
 * The real path of `target`, or of its deepest existing ancestor joined with the rest (for files not yet written;
 * ENOTDIR: a file stands where the path needs a folder, which the write that follows reports in the tenant's words).
 */
async function realpathOfNearest(target: string): Promise<string> {
  try {
    return await realpath(target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    const parent = dirname(target);
    if (parent === target) return target;
    return resolve(await realpathOfNearest(parent), relative(parent, target));
  }
}

/** realpathOfNearest with its errors (ELOOP, EACCES, EIO...) named relative to the tenant's folder `root`. */
async function realpathUnder(root: string, target: string): Promise<string> {
  try {
    return await realpathOfNearest(target);
  } catch (err) {
    throw await fileSystemError(err, root, target);
  }
}

/** The tenant's own folder under the data root; a config_error when the call carries no (valid) tenant. */
export function tenantDataRoot(tenantId: string | undefined): string {
  if (tenantId === undefined || tenantId === '') {
    throw new ConnectorError('file-based connectors need the calling tenant; the call carried none', 'config_error');
  }
  if (!TENANT_FOLDER.test(tenantId))
    throw new ConnectorError('the calling tenant id is not a valid folder name', 'config_error');
  return join(connectorEnvironment().dataRoot, tenantId);
}

/**
 * The absolute path of `parts` (joined, relative to the tenant's folder `root`), refused as a config_error when it
 * would leave that folder. `what` names the setting in messages.
 */
export async function resolveUnderDataRoot(root: string, what: string, ...parts: string[]): Promise<string> {
  for (const part of parts) {
    if (isAbsolute(part))
      throw new ConnectorError(`${what} must be relative to the data root, not absolute`, 'config_error');
  }
  const target = resolve(root, ...parts);
  if (!inside(root, target)) throw new ConnectorError(`${what} leaves the data root`, 'config_error');
  await realPathUnderDataRoot(root, what, target);
  return target;
}

/**
 * The real path of `target` (a file found while listing, maybe a symbolic link), checked to stay under the tenant's
 * folder `root`: the caller reads exactly this path, so a link changed after the check cannot redirect the read.
 */
export async function realPathUnderDataRoot(root: string, what: string, target: string): Promise<string> {
  const realRoot = await realpathUnder(root, root);
  const real = await realpathUnder(root, target);
  if (!inside(realRoot, real)) {
    throw new ConnectorError(`${what} leaves the data root through a symbolic link`, 'config_error');
  }
  return real;
}
