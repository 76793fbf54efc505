/**
 * Settings that belong to the operator, not to a connector: where file-based connectors may read and write, and
 * whether network connectors may reach private addresses. Read from process.env at call time, so every process that
 * runs drivers (executor, catalog) honours the same environment.
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface ConnectorEnvironment {
  /** Absolute folder that `path` settings of file-based connectors are relative to (CONNECTOR_DATA_ROOT). */
  dataRoot: string;
  /** Loopback, private and link-local addresses may be reached (CONNECTOR_ALLOW_PRIVATE_NETWORKS=true). */
  allowPrivateNetworks: boolean;
  /**
   * CIDR ranges (or single addresses) that may be reached although private (CONNECTOR_ALLOWED_NETWORKS, comma
   * separated, e.g. `10.1.0.0/16,fd00:1::/64`). Cloud metadata addresses are never reachable, whatever is allowed.
   */
  allowedNetworks: string[];
}

const isTrue = (value: string | undefined): boolean => value !== undefined && /^(1|true|yes)$/i.test(value.trim());

export function connectorEnvironment(env: NodeJS.ProcessEnv = process.env): ConnectorEnvironment {
  const root = env['CONNECTOR_DATA_ROOT'];
  return {
    dataRoot: resolve(root !== undefined && root.trim() !== '' ? root : join(tmpdir(), 'conduit-data')),
    allowPrivateNetworks: isTrue(env['CONNECTOR_ALLOW_PRIVATE_NETWORKS']),
    allowedNetworks: (env['CONNECTOR_ALLOWED_NETWORKS'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  };
}
