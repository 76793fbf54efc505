/**
 * The nodes whose success may wait to be reported (run-reporter.ts): the transforms whose table a transform, a
 * decision or a sink reads. A transform reads only the run's own tables, so running it again costs nothing outside
 * the run; and a node that reads its table and has not been recorded as done needs that table rebuilt after a
 * takeover anyway (resume-plan.ts), while one recorded as done was reported after it (the reporter keeps that
 * order). So an end lost with its executor makes a takeover run nothing it would not have run. Not a transform that
 * nothing reads (a takeover would rebuild its inputs, up to reading a source again, only for it), nor a decision
 * (its recorded choice fixes the branches a takeover keeps), nor a source, sink or sql node, whose work reaches a
 * connector: their ends are reported at once.
 */
import { checkDagShape, type Dag } from '@conduit/dag';

/** Node types that read their inputs' tables (a sql node's inputs only order it). */
const READERS: ReadonlySet<string> = new Set(['transform', 'decision', 'sink']);

export function repeatableNodeIds(dag: Record<string, unknown>): ReadonlySet<string> {
  if (checkDagShape(dag).length > 0) return new Set();
  const { nodes, edges } = dag as unknown as Dag;
  const typeOf = new Map(nodes.map((n) => [n.id, n.type]));
  const ids = new Set<string>();
  for (const edge of edges)
    if (typeOf.get(edge.from) === 'transform' && READERS.has(typeOf.get(edge.to) ?? '')) ids.add(edge.from);
  return ids;
}
