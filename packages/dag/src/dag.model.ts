// The DAG of a pipeline as stored (api.md "Pipeline"), and the shapes of its validation result.

export type NodeType = 'source' | 'transform' | 'sink' | 'sql' | 'decision';
export const NODE_TYPES: readonly NodeType[] = Object.freeze([
  'source',
  'transform',
  'sink',
  'sql',
  'decision',
] as const);

export function isNodeType(type: string): type is NodeType {
  return (NODE_TYPES as readonly string[]).includes(type);
}

/**
 * Node types whose output is a table (or view) of the run, named after the node, that the nodes below read. A sql
 * node or a sink leaves none: an edge from one only orders the node below after it, and gives it nothing to read.
 */
export const LEAVES_TABLE: ReadonlySet<string> = new Set<NodeType>(['source', 'transform', 'decision']);
/** Node types that read their inputs' tables; a sql node's inputs only order it, a source has none. */
export const READS_INPUTS: ReadonlySet<string> = new Set<NodeType>(['transform', 'decision', 'sink']);

export interface DagNode {
  id: string;
  /** A string, not NodeType: an unknown type is a validation error, not a shape error. */
  type: string;
  config: Record<string, unknown>;
  /** Also allowed in `config` (node-settings.ts): the engine reads them from either. */
  timeout_seconds?: unknown;
  retries?: unknown;
}

export interface DagEdge {
  from: string;
  to: string;
  /** Only on edges out of a decision node: the choice that makes this branch run. */
  when?: string;
}

export interface Dag {
  nodes: DagNode[];
  edges: DagEdge[];
}

/**
 * Limits of a valid DAG (api.md "Limits"); going over is a validation error. A node id's length is the run messages'
 * bound (packages/contracts run-messages.ts, the API's `nodeId`): a run of a longer one could not be reported.
 */
export const DAG_LIMITS: { readonly maxNodes: 500; readonly maxEdges: 2000; readonly maxNodeIdLength: 200 } =
  Object.freeze({
    maxNodes: 500,
    maxEdges: 2000,
    maxNodeIdLength: 200,
  });

/** Beyond these a DAG is refused as malformed: it protects the services, a valid DAG is far smaller. */
export const DAG_SHAPE_LIMITS: { readonly maxNodes: 10_000; readonly maxEdges: 20_000 } = Object.freeze({
  maxNodes: 10_000,
  maxEdges: 20_000,
});

/** A shape problem; `path` starts at `dag`, e.g. `dag.nodes[3].config`. */
export interface ShapeProblem {
  path: string;
  code: string;
  message: string;
}

export type ConnectorRole = 'source' | 'sink' | 'sql' | 'llm';

export interface ConnectorInfo {
  type: string;
  roles: readonly ConnectorRole[];
  /**
   * The node config fields its driver reads beyond the standard ones (a postgres source's `params`), where the driver
   * declares them: any other field of a source or sink on it is then a typo. Undeclared: any field passes.
   */
  nodeFields?: { readonly source?: readonly string[]; readonly sink?: readonly string[] };
}

export interface ValidationContext {
  /** Look up a connector of the pipeline's tenant by id; undefined when it does not exist. */
  connector(id: string): ConnectorInfo | undefined;
}

/** One validation finding; `path` is relative to the DAG, e.g. `nodes[2].config.mode`. */
export interface ValidationIssue {
  code: string;
  message: string;
  node_id?: string;
  edge?: { from: string; to: string };
  path?: string;
  /** For `cycle`: the node ids around the cycle, first id repeated at the end. */
  cycle?: string[];
}

export interface ValidationResult {
  valid: boolean;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
  /** Topological levels; the nodes of one level may run in parallel. */
  execution_order: string[][];
}
