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

/** The connector type whose chat protocol the executor speaks itself. */
export const LLM_CONNECTOR_TYPE = 'openai';

/**
 * An llm decision's connector: one whose driver can act as `llm` (the `openai` type), or an `openai` connector when
 * no driver of that type is registered, since the executor speaks its chat protocol itself.
 */
export function llmConnectorFor(
  node: DagNode,
  connectors: ReadonlyMap<string, ResolvedConnector>,
  drivers: (type: string) => ConnectorDriver | undefined,
): ResolvedConnector {
  const id = node.config['connector_id'];
  if (typeof id !== 'string') throw new NodeFailure('config.connector_id is missing', false);
  const connector = connectors.get(id);
  if (!connector) throw new NodeFailure(`connector "${id}" does not exist`, false, 'unknown_connector');
  const driver = drivers(connector.type);
  const fit = driver ? driver.info.roles.includes('llm') : connector.type === LLM_CONNECTOR_TYPE;
  if (!fit)
    throw new NodeFailure(`connector "${id}" of type ${connector.type} cannot act as llm`, false, 'connector_unfit');
  return connector;
}
