// `timeout_seconds` and `retries` on a node itself (api.md: "Every node may also set timeout_seconds and retries") or
// in its config, where the engine reads them: either place, not both with different values.
import type { DagNode, ValidationIssue } from './dag.model.js';
import { describeValue } from './config-checker.js';

export const NODE_SETTINGS = ['timeout_seconds', 'retries'] as const;

/**
 * An `invalid_node_config` issue for a setting given on the node and in its config with different values (each
 * value is checked where it stands, node-config.rules.ts; one already refused there is not reported twice).
 */
export function nodeSettingIssues(node: DagNode, index: number, issues: ValidationIssue[]): void {
  for (const key of NODE_SETTINGS) {
    const [own, inConfig] = [node[key], node.config[key]];
    if (own === undefined || inConfig === undefined || own === inConfig) continue;
    if (issues.some((issue) => issue.path === `nodes[${index}].${key}`)) continue;
    issues.push({
      code: 'invalid_node_config',
      message: `node "${node.id}": ${key} is set on the node (${describeValue(own)}) and in its config (${describeValue(inConfig)}); set it once`,
      node_id: node.id,
      path: `nodes[${index}].${key}`,
    });
  }
}

/** The node with its own settings moved into its config, as the engine and the config rules read them. */
export function nodeWithSettings<N extends DagNode>(node: N): N {
  if (NODE_SETTINGS.every((key) => node[key] === undefined)) return node;
  const config = { ...node.config };
  for (const key of NODE_SETTINGS) if (node[key] !== undefined) config[key] ??= node[key];
  return { ...node, config };
}
