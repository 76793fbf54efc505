/** A node's connector and driver, checked to exist and to support what the node does with it. */
import type { ConnectorDriver } from '@conduit/connectors';
import type { ResolvedConnector } from '@conduit/contracts';
import type { DagNode } from '@conduit/dag';
import { NodeFailure } from './node-failure.js';

const METHOD = { read: 'read', write: 'write', execute: 'execute' } as const;

export function connectorFor(
  node: DagNode,
  role: 'read' | 'write' | 'execute',
  connectors: ReadonlyMap<string, ResolvedConnector>,
  drivers: (type: string) => ConnectorDriver | undefined,
): { connector: ResolvedConnector; driver: ConnectorDriver } {
  const id = node.config['connector_id'];
  if (typeof id !== 'string') throw new NodeFailure('config.connector_id is missing', false);
  const connector = connectors.get(id);
  if (!connector) throw new NodeFailure(`connector "${id}" does not exist`, false, 'unknown_connector');
  const driver = drivers(connector.type);
  if (!driver) throw new NodeFailure(`no driver for connector type "${connector.type}"`, false, 'connector_unfit');
  if (typeof driver[METHOD[role]] !== 'function') {
    throw new NodeFailure(`connector type "${connector.type}" cannot ${role}`, false, 'connector_unfit');
  }
  return { connector, driver };
}
