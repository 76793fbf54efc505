// Which connector a node uses and in what role; the caller looks the ids up, validation
// checks that each exists and can play the role.
import type { ConnectorRole, Dag, DagNode, ValidationContext, ValidationIssue } from './dag.model.js';
import { isNonEmptyString } from './config-checker.js';

/** The role a node needs its connector to play; undefined when the node uses no connector. */
export function connectorRoleOf(node: DagNode): ConnectorRole | undefined {
  switch (node.type) {
    case 'source':
    case 'sink':
    case 'sql':
      return node.type;
    case 'decision':
      return node.config['strategy'] === 'llm' ? 'llm' : undefined;
    default:
      return undefined;
  }
}

function connectorIdOf(node: DagNode): string | undefined {
  const id = node.config['connector_id'];
  return connectorRoleOf(node) !== undefined && isNonEmptyString(id) ? id : undefined;
}

/** Connector ids a DAG references, each once, in DAG order (for the caller to look up before validating). */
export function referencedConnectorIds(dag: Dag): string[] {
  const ids = new Set<string>();
  for (const node of dag.nodes) {
    const id = connectorIdOf(node);
    if (id !== undefined) ids.add(id);
  }
  return [...ids];
}

/** `unknown_connector` / `connector_unfit` for node `index`; a missing connector_id is a config issue. */
export function checkNodeConnector(
  node: DagNode,
  index: number,
  ctx: ValidationContext,
  issues: ValidationIssue[],
): void {
  const role = connectorRoleOf(node);
  const id = connectorIdOf(node);
  if (role === undefined || id === undefined) return;
  const path = `nodes[${index}].config.connector_id`;
  const connector = ctx.connector(id);
  if (connector === undefined) {
    issues.push({
      code: 'unknown_connector',
      message: `node "${node.id}": connector "${id}" does not exist`,
      node_id: node.id,
      path,
    });
  } else if (!connector.roles.includes(role)) {
    const roles = connector.roles.length > 0 ? connector.roles.join(', ') : 'none';
    issues.push({
      code: 'connector_unfit',
      message: `node "${node.id}": connector "${id}" of type ${connector.type} cannot act as ${role} (it can act as: ${roles})`,
      node_id: node.id,
      path,
    });
  }
}
