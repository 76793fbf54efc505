// validateDag: every rule of api.md "Pipeline" in one pass, reporting every problem at once.
import { checkNodeConnector } from './connector-refs.js';
import { buildDagGraph, type DagGraph } from './dag-graph.js';
import {
  DAG_LIMITS,
  isNodeType,
  LEAVES_TABLE,
  READS_INPUTS,
  type Dag,
  type ValidationContext,
  type ValidationIssue,
  type ValidationResult,
} from './dag.model.js';
import { executionLevels, findCycles } from './graph-order.js';
import { checkNodeConfig, decisionChoices } from './node-config.rules.js';

function checkLimits(dag: Dag, errors: ValidationIssue[]): void {
  if (dag.nodes.length === 0) errors.push({ code: 'empty_dag', message: 'the DAG has no nodes', path: 'nodes' });
  if (dag.nodes.length > DAG_LIMITS.maxNodes) {
    errors.push({
      code: 'too_many_nodes',
      message: `at most ${DAG_LIMITS.maxNodes} nodes (got ${dag.nodes.length})`,
      path: 'nodes',
    });
  }
  if (dag.edges.length > DAG_LIMITS.maxEdges) {
    errors.push({
      code: 'too_many_edges',
      message: `at most ${DAG_LIMITS.maxEdges} edges (got ${dag.edges.length})`,
      path: 'edges',
    });
  }
}

function checkNodes(dag: Dag, graph: DagGraph, ctx: ValidationContext, errors: ValidationIssue[]): void {
  // A node's output is a table named after its id, and table names ignore case: "Orders" and "orders" would be one.
  const firstOfFolded = new Map<string, string>();
  dag.nodes.forEach((node, i) => {
    const folded = node.id.toLowerCase();
    const same = firstOfFolded.get(folded);
    if (node.id.trim() === '') {
      errors.push({
        code: 'invalid_node_id',
        message: `node ${i}: id must be a non-empty string`,
        path: `nodes[${i}].id`,
      });
    } else if (node.id.length > DAG_LIMITS.maxNodeIdLength) {
      // Not echoed: the id is what is too long.
      errors.push({
        code: 'invalid_node_id',
        message: `node ${i}: id must be at most ${DAG_LIMITS.maxNodeIdLength} characters (got ${node.id.length})`,
        path: `nodes[${i}].id`,
      });
    } else if (graph.nodeIndex[graph.vertexOf.get(node.id)!] !== i) {
      errors.push({
        code: 'duplicate_node_id',
        message: `node id "${node.id}" is used more than once`,
        node_id: node.id,
        path: `nodes[${i}].id`,
      });
    } else if (same !== undefined) {
      errors.push({
        code: 'duplicate_node_id',
        message: `node id "${node.id}" differs from "${same}" only in case: each node's output is a table named after its id, and table names ignore case`,
        node_id: node.id,
        path: `nodes[${i}].id`,
      });
    }
    if (same === undefined) firstOfFolded.set(folded, node.id);
    if (!isNodeType(node.type)) {
      errors.push({
        code: 'unknown_node_type',
        message: `node "${node.id}": unknown type "${node.type}" (expected source, transform, sink, sql or decision)`,
        node_id: node.id,
        path: `nodes[${i}].type`,
      });
      return;
    }
    const connectorId = node.config['connector_id'];
    const connector = typeof connectorId === 'string' ? ctx.connector(connectorId) : undefined;
    checkNodeConfig(node, node.type, i, errors, connector);
    checkNodeConnector(node, i, ctx, errors);
  });
}

function checkEdges(dag: Dag, graph: DagGraph, errors: ValidationIssue[], warnings: ValidationIssue[]): void {
  const typeOf = (id: string): string | undefined => {
    const v = graph.vertexOf.get(id);
    return v === undefined ? undefined : dag.nodes[graph.nodeIndex[v]!]!.type;
  };
  const choicesOf = new Map<string, string[] | undefined>();
  const choices = (id: string): string[] | undefined => {
    if (!choicesOf.has(id)) choicesOf.set(id, decisionChoices(dag.nodes[graph.nodeIndex[graph.vertexOf.get(id)!]!]!));
    return choicesOf.get(id);
  };

  dag.edges.forEach((e, i) => {
    const edge = { from: e.from, to: e.to };
    const label = `edge ${i} (${e.from} -> ${e.to})`;
    const fromType = typeOf(e.from);
    if (fromType === undefined) {
      errors.push({ code: 'unknown_node', message: `${label}: from names no node`, edge, path: `edges[${i}].from` });
    }
    if (typeOf(e.to) === undefined) {
      errors.push({ code: 'unknown_node', message: `${label}: to names no node`, edge, path: `edges[${i}].to` });
    }
    if (e.from === e.to && fromType !== undefined) {
      errors.push({
        code: 'self_loop',
        message: `${label}: a node cannot feed itself`,
        node_id: e.from,
        edge,
        path: `edges[${i}]`,
      });
    }
    if (fromType === undefined) return;
    if (fromType !== 'decision') {
      if (e.when !== undefined) {
        errors.push({
          code: 'when_without_decision',
          message: `${label}: when is only for edges out of a decision node, "${e.from}" is a ${fromType}`,
          edge,
          path: `edges[${i}].when`,
        });
      }
      return;
    }
    if (e.when === undefined) {
      warnings.push({
        code: 'edge_without_when',
        message: `${label}: an edge out of a decision without when runs whatever the choice`,
        edge,
        path: `edges[${i}]`,
      });
      return;
    }
    const known = choices(e.from);
    if (known !== undefined && !known.includes(e.when)) {
      errors.push({
        code: 'unknown_choice',
        message: `${label}: when "${e.when}" is not one of the choices of "${e.from}" (${known.join(', ')})`,
        edge,
        path: `edges[${i}].when`,
      });
    }
  });
}

/** `unreachable_choice` warnings: a choice that no edge out of its decision node carries. */
function checkChoicesUsed(dag: Dag, graph: DagGraph, warnings: ValidationIssue[]): void {
  const used = new Map<string, Set<string>>();
  for (const e of dag.edges) {
    if (e.when === undefined) continue;
    let whens = used.get(e.from);
    if (!whens) used.set(e.from, (whens = new Set()));
    whens.add(e.when);
  }
  graph.nodeIndex.forEach((i) => {
    const node = dag.nodes[i]!;
    for (const choice of decisionChoices(node) ?? []) {
      if (used.get(node.id)?.has(choice)) continue;
      warnings.push({
        code: 'unreachable_choice',
        message: `node "${node.id}": no edge carries when "${choice}", so choosing it runs nothing downstream`,
        node_id: node.id,
        path: `nodes[${i}].config.choices`,
      });
    }
  });
}

function checkInputs(dag: Dag, graph: DagGraph, errors: ValidationIssue[]): void {
  const { offsets, targets } = graph;
  // 1: fed by an edge, 2: by an edge from a node that leaves a table.
  const fed = new Uint8Array(graph.ids.length);
  for (let u = 0; u < graph.ids.length; u++) {
    const feeds = LEAVES_TABLE.has(dag.nodes[graph.nodeIndex[u]!]!.type) ? 2 : 1;
    for (let e = offsets[u]!; e < offsets[u + 1]!; e++)
      if (targets[e] !== u) fed[targets[e]!] = Math.max(fed[targets[e]!]!, feeds);
  }
  graph.nodeIndex.forEach((i, v) => {
    const node = dag.nodes[i]!;
    if (fed[v] === 2 || !READS_INPUTS.has(node.type)) return;
    errors.push({
      code: 'missing_input',
      message:
        fed[v] === 0
          ? `node "${node.id}": a ${node.type} needs at least one incoming edge`
          : `node "${node.id}": a ${node.type} needs an incoming edge from a source, transform or decision: a sql node or a sink leaves no table to read, so an edge from one only orders`,
      node_id: node.id,
      path: `nodes[${i}]`,
    });
  });
}

function checkCycles(graph: DagGraph, errors: ValidationIssue[]): void {
  for (const cycle of findCycles(graph)) {
    const ids = cycle.map((v) => graph.ids[v]!);
    errors.push({ code: 'cycle', message: `cycle: ${ids.join(' -> ')}`, node_id: ids[0]!, cycle: ids });
  }
}

/**
 * Validates a shape-checked DAG (see checkDagShape) against every rule, never stopping at the
 * first problem. Connectors are looked up through ctx (see referencedConnectorIds).
 */
export function validateDag(dag: Dag, ctx: ValidationContext): ValidationResult {
  const errors: ValidationIssue[] = [];
  const warnings: ValidationIssue[] = [];
  const graph = buildDagGraph(dag);
  checkLimits(dag, errors);
  checkNodes(dag, graph, ctx, errors);
  checkEdges(dag, graph, errors, warnings);
  checkInputs(dag, graph, errors);
  checkCycles(graph, errors);
  checkChoicesUsed(dag, graph, warnings);
  const execution_order = executionLevels(graph).map((level) => level.map((v) => graph.ids[v]!));
  return { valid: errors.length === 0, errors, warnings, execution_order };
}
