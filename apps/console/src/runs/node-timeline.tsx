// A run's nodes on a timeline (Gantt): each node's bar from its start to its end (or now, while it runs), on one
// scale from the run's start, with its state, duration and rows in/out. A table, so it reads without the bars too.
import type { Run, RunNode } from '@conduit/sdk';
import { formatDuration } from '../ui/format.js';

export interface Span {
  node: RunNode;
  /** From the run's first node start, in ms; undefined for a node that never started. */
  offsetMs: number | undefined;
  durationMs: number | undefined;
}

/** Each node's span on the run's scale, and the scale's length (at least 1 ms, so bars have a width). */
export function spansOf(nodes: readonly RunNode[], now: number): { spans: Span[]; totalMs: number } {
  const starts = nodes.flatMap((n) => (n.started_at ? [Date.parse(n.started_at)] : []));
  const origin = starts.length > 0 ? Math.min(...starts) : now;
  let end = origin + 1;
  const spans = nodes.map((node) => {
    if (!node.started_at) return { node, offsetMs: undefined, durationMs: undefined };
    const start = Date.parse(node.started_at);
    const finish = node.finished_at ? Date.parse(node.finished_at) : now;
    end = Math.max(end, finish);
    return { node, offsetMs: start - origin, durationMs: Math.max(0, finish - start) };
  });
  return { spans, totalMs: end - origin };
}

const percent = (part: number, whole: number) => `${((part / whole) * 100).toFixed(2)}%`;

export function NodeTimeline({ run, now = Date.now() }: { run: Run; now?: number }) {
  const { spans, totalMs } = spansOf(run.nodes, now);
  return (
    <div className="gantt-wrap">
      <table className="gantt">
        <caption>Node timeline: {formatDuration(totalMs)} from the first node's start</caption>
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">State</th>
            <th scope="col" className="gantt-track-head">
              Timeline
            </th>
            <th scope="col">Duration</th>
            <th scope="col">Rows in</th>
            <th scope="col">Rows out</th>
          </tr>
        </thead>
        <tbody>
          {spans.map(({ node, offsetMs, durationMs }) => (
            <tr key={node.id} data-timeline-node={node.id}>
              <th scope="row">{node.id}</th>
              <td>
                <span className={`badge state-${node.status}`}>{node.status}</span>
              </td>
              <td className="gantt-track">
                {offsetMs !== undefined && durationMs !== undefined && (
                  <span
                    className={`gantt-bar state-${node.status}`}
                    style={{ left: percent(offsetMs, totalMs), width: percent(Math.max(durationMs, 0), totalMs) }}
                    title={`starts at +${formatDuration(offsetMs)}`}
                  />
                )}
              </td>
              <td>{formatDuration(durationMs ?? null)}</td>
              <td>{node.rows_in}</td>
              <td>{node.rows_out}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
