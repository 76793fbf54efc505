/**
 * Nodes that can run again at no cost outside their run: a transform and a rules decision read only the run's own
 * tables. A source reads a connector (a queue's source consumes what it reads), a sink and a sql node write through
 * one, an llm decision pays for its answer: each of those runs once wherever it can, so its end is reported at once.
 */
import { checkDagShape, type Dag } from '@conduit/dag';

export function repeatableNodeIds(dag: Record<string, unknown>): ReadonlySet<string> {
  if (checkDagShape(dag).length > 0) return new Set();
  const ids = new Set<string>();
  for (const node of (dag as unknown as Dag).nodes) {
    const repeatable = node.type === 'transform' || (node.type === 'decision' && node.config['strategy'] === 'rules');
    if (repeatable) ids.add(node.id);
  }
  return ids;
}
