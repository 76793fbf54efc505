// What each decision node chose, and why: an LLM decision's choice, reason and confidence (when it gave one).
import type { RunNode } from '@conduit/sdk';

export interface Decision {
  nodeId: string;
  choice: string;
  reason: string | undefined;
  confidence: number | undefined;
}

/** The decisions among a run's nodes: those whose output holds a `choice`. */
export function decisionsOf(nodes: readonly RunNode[]): Decision[] {
  return nodes.flatMap((node) => {
    const output = node.output;
    if (node.type !== 'decision' || !output || typeof output.choice !== 'string') return [];
    return [
      {
        nodeId: node.id,
        choice: output.choice,
        reason: typeof output.reason === 'string' ? output.reason : undefined,
        confidence: typeof output.confidence === 'number' ? output.confidence : undefined,
      },
    ];
  });
}

export function Decisions({ nodes }: { nodes: readonly RunNode[] }) {
  const decisions = decisionsOf(nodes);
  if (decisions.length === 0) return null;
  return (
    <section aria-labelledby="decisions-title">
      <h2 id="decisions-title">Decisions</h2>
      <dl className="facts">
        {decisions.map((d) => (
          <div key={d.nodeId} className="decision">
            <dt>{d.nodeId}</dt>
            <dd>
              chose <strong>{d.choice}</strong>
              {d.confidence !== undefined && ` (confidence ${Math.round(d.confidence * 100)}%)`}
              {d.reason && <p className="decision-reason">{d.reason}</p>}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
