// The DAG drawn with React Flow: one card per node (type, execution level, run state, validation issues), edges
// with decision conditions; issues on an edge turn it red. A table after it says the same for keyboard and screen
// reader users (the canvas is a picture for them).
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Edge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { NODE_HEIGHT, NODE_WIDTH, type GraphEdge, type GraphNode } from './dag-model.js';

type CardNode = Node<{ node: GraphNode }, 'card'>;

const TYPE_ICONS: Readonly<Record<string, string | undefined>> = {
  source: '⇥',
  transform: 'ƒ',
  sql: '⌗',
  decision: '◇',
  sink: '⇤',
};

function NodeCard({ data: { node } }: NodeProps<CardNode>) {
  const classes = [
    'dag-node',
    `type-${node.type}`,
    node.state ? `state-${node.state}` : '',
    node.issues.length ? 'invalid' : '',
  ];
  return (
    <div className={classes.join(' ')} style={{ width: NODE_WIDTH, minHeight: NODE_HEIGHT }} data-node-id={node.id}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="dag-node-head">
        <span className="dag-node-type" aria-hidden="true">
          {TYPE_ICONS[node.type] ?? '?'}
        </span>
        <span className="dag-node-kind">{node.type}</span>
        {node.level !== undefined && <span className="dag-node-level">level {node.level}</span>}
      </div>
      <div className="dag-node-id">{node.id}</div>
      {node.state && <div className="dag-node-state">{node.state}</div>}
      {node.issues.map((issue) => (
        <div key={issue} className="dag-node-issue">
          ⚠ {issue}
        </div>
      ))}
      {node.error && <div className="dag-node-issue">✖ {node.error}</div>}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}

const nodeTypes = { card: NodeCard };

export function DagGraph({ nodes, edges, label }: { nodes: GraphNode[]; edges: GraphEdge[]; label: string }) {
  const flowNodes: CardNode[] = nodes.map((node) => ({
    id: node.id,
    type: 'card',
    position: { x: node.x, y: node.y },
    data: { node },
    draggable: false,
    connectable: false,
    ariaLabel: `${node.type} node ${node.id}`,
  }));
  const flowEdges: Edge[] = edges.map((edge) => ({
    id: edge.id,
    source: edge.from,
    target: edge.to,
    label: edge.issues.length ? `⚠ ${edge.issues.join('; ')}` : edge.label,
    className: edge.issues.length ? 'edge-invalid' : undefined,
    markerEnd: { type: MarkerType.ArrowClosed },
  }));
  return (
    <figure className="dag">
      <div className="dag-canvas" role="group" aria-label={label}>
        <ReactFlow
          nodes={flowNodes}
          edges={flowEdges}
          nodeTypes={nodeTypes}
          fitView
          nodesConnectable={false}
          nodesDraggable={false}
          proOptions={{ hideAttribution: true }}
          minZoom={0.2}
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      <figcaption>
        <DagTable nodes={nodes} />
      </figcaption>
    </figure>
  );
}

/** The nodes by execution level, as text. */
export function DagTable({ nodes }: { nodes: GraphNode[] }) {
  const byLevel = [...nodes].sort((a, b) => (a.level ?? Infinity) - (b.level ?? Infinity) || a.id.localeCompare(b.id));
  const withState = nodes.some((n) => n.state !== undefined);
  return (
    <table className="dag-table">
      <caption>Nodes by execution level</caption>
      <thead>
        <tr>
          <th scope="col">Level</th>
          <th scope="col">Node</th>
          <th scope="col">Type</th>
          {withState && <th scope="col">State</th>}
          <th scope="col">Problems</th>
        </tr>
      </thead>
      <tbody>
        {byLevel.map((node) => (
          <tr key={node.id} data-node-row={node.id}>
            <td>{node.level ?? '–'}</td>
            <th scope="row">{node.id}</th>
            <td>{node.type}</td>
            {withState && (
              <td className={node.state ? `cell-state state-${node.state}` : undefined}>{node.state ?? '–'}</td>
            )}
            <td>{[...node.issues, ...(node.error ? [node.error] : [])].join('; ') || '–'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
