/**
 * The backstop for messages a tenant sees (a node's error, the run log): an error no driver worded for the tenant
 * (Node's, DuckDB's, a library's) may name the server's absolute paths. Paths under the connector data root become
 * `<data>/...` relative to the tenant's folder, paths under the executor's data folder become `<scratch>`, and the
 * run's tenant id shows as `<tenant>` (docs/security.md, "Paths in messages").
 */

export interface ServerPaths {
  /** CONNECTOR_DATA_ROOT: each tenant's folder is a child of it. */
  dataRoot: string;
  /** The executor's data folder (EXECUTOR_DATA_DIR or this process's folder in it), holding runs' scratch folders. */
  dataDir: string;
  /** The run's tenant. */
  tenantId?: string;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const trimmed = (path: string): string => (path.length > 1 ? path.replace(/\/+$/, '') : path);
// What ends a path inside a message: white space or the quotes and punctuation messages put around paths.
const END = `\\s'"\`,;:)\\]`;
const AFTER_PATH = `(?=[${END}]|$)`;

/** `message` with the server's paths and the tenant id replaced (see the module comment). */
export function hideServerPaths(message: string, paths: ServerPaths): string {
  const dataRoot = trimmed(paths.dataRoot);
  const dataDir = trimmed(paths.dataDir);
  const replacements: [string, (text: string) => string][] = [
    // The root, then (optionally) the tenant's folder, then the tenant's own path, kept.
    [
      dataRoot,
      (text) => text.replace(new RegExp(`${escape(dataRoot)}(?:/[^/${END}]+)?(?=/|[${END}]|$)`, 'g'), '<data>'),
    ],
    [dataDir, (text) => text.replace(new RegExp(`${escape(dataDir)}(?:/[^${END}]*)?${AFTER_PATH}`, 'g'), '<scratch>')],
  ];
  // The deeper folder first, should one hold the other.
  replacements.sort(([a], [b]) => b.length - a.length);
  let hidden = message;
  for (const [path, replace] of replacements) if (path !== '/' && path !== '') hidden = replace(hidden);
  if (paths.tenantId !== undefined && paths.tenantId !== '') hidden = hidden.split(paths.tenantId).join('<tenant>');
  return hidden;
}
