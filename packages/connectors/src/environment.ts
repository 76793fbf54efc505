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
  /** Cloud metadata addresses (169.254.169.254, fd00:ec2::254) may be reached (CONNECTOR_ALLOW_METADATA=true). */
  allowMetadata: boolean;
}

const isTrue = (value: string | undefined): boolean => value !== undefined && /^(1|true|yes)$/i.test(value.trim());

export function connectorEnvironment(env: NodeJS.ProcessEnv = process.env): ConnectorEnvironment {
  const root = env['CONNECTOR_DATA_ROOT'];
  return {
    dataRoot: resolve(root !== undefined && root.trim() !== '' ? root : join(tmpdir(), 'conduit-data')),
    allowPrivateNetworks: isTrue(env['CONNECTOR_ALLOW_PRIVATE_NETWORKS']),
    allowMetadata: isTrue(env['CONNECTOR_ALLOW_METADATA']),
  };
}
