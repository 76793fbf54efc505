// A node in conduit.yaml names its connector (`connector: shop-db`, a connector of the same project); the API wants
// its id (`connector_id`). A literal `connector_id` is passed through for connectors managed elsewhere.
import type { ManifestNode, ManifestPipeline } from './model.js';

export const CONNECTOR_NAME_KEY = 'connector';

/** The connector names the pipeline's nodes use. */
export function connectorNamesOf(pipeline: ManifestPipeline): string[] {
  return pipeline.dag.nodes.flatMap((n) =>
    typeof n.config[CONNECTOR_NAME_KEY] === 'string' ? [n.config[CONNECTOR_NAME_KEY]] : [],
  );
}

/** The DAG as the API takes it: each `connector: <name>` replaced by `connector_id: <idOf(name)>`. */
export function resolveConnectorNames(
  pipeline: ManifestPipeline,
  idOf: (name: string) => string,
): { nodes: ManifestNode[]; edges: ManifestPipeline['dag']['edges'] } {
  const nodes = pipeline.dag.nodes.map((node) => {
    const name = node.config[CONNECTOR_NAME_KEY];
    if (typeof name !== 'string') return node;
    const { [CONNECTOR_NAME_KEY]: _name, ...rest } = node.config;
    return { ...node, config: { connector_id: idOf(name), ...rest } };
  });
  return { nodes, edges: pipeline.dag.edges };
}
