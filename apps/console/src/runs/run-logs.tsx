// A run's log, live over server-sent events (the SDK resumes a dropped stream by Last-Event-ID), filtered by level
// and node on the server: a new filter opens a new stream from the first line.
import type { ConduitClient, RunLogLine } from '@conduit/sdk';
import { useEffect, useState } from 'react';
import { describeError } from '../ui/states.js';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];

export function RunLogs({
  client,
  jobId,
  runId,
  nodeIds,
}: {
  client: ConduitClient;
  jobId: string;
  runId: string;
  /** The run's nodes, for the node filter. */
  nodeIds: readonly string[];
}) {
  const [level, setLevel] = useState<Level | ''>('');
  const [nodeId, setNodeId] = useState('');
  const [lines, setLines] = useState<RunLogLine[]>([]);
  const [stream, setStream] = useState<'live' | 'ended' | { error: string }>('live');

  useEffect(() => {
    const abort = new AbortController();
    setLines([]);
    setStream('live');
    void (async () => {
      try {
        const live = client.runs.streamLogs(runId, {
          jobId,
          signal: abort.signal,
          ...(level ? { level } : {}),
          ...(nodeId ? { nodeId } : {}),
        });
        for await (const line of live) setLines((seen) => [...seen, line]);
        setStream('ended');
      } catch (err) {
        if (!abort.signal.aborted) setStream({ error: describeError(err).message });
      }
    })();
    return () => abort.abort();
  }, [client, jobId, runId, level, nodeId]);

  return (
    <section aria-labelledby="logs-title" className="logs">
      <div className="toolbar">
        <h2 id="logs-title">Logs</h2>
        <label>
          Level{' '}
          <select value={level} onChange={(e) => setLevel(e.target.value as Level | '')}>
            <option value="">all</option>
            {LEVELS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label>
          Node{' '}
          <select value={nodeId} onChange={(e) => setNodeId(e.target.value)}>
            <option value="">all</option>
            {nodeIds.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
        <span role="status" className="stream-state">
          {stream === 'live'
            ? '● live'
            : stream === 'ended'
              ? 'run ended: log complete'
              : `stream failed: ${stream.error}`}
        </span>
      </div>
      <ol className="log-lines" role="log" aria-live="polite" aria-label="Run log">
        {lines.length === 0 && (
          <li className="muted">{stream === 'live' ? 'Waiting for log lines…' : 'No log lines.'}</li>
        )}
        {lines.map((line) => (
          <li key={line.seq} className={`log-${line.level}`}>
            <time dateTime={line.ts}>{new Date(line.ts).toLocaleTimeString()}</time>{' '}
            <span className="log-level">{line.level}</span>{' '}
            {line.node_id && <span className="log-node">[{line.node_id}]</span>} {line.message}
          </li>
        ))}
      </ol>
    </section>
  );
}
