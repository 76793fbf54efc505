import { FINAL_RUN_STATUSES, type RunError, type RunReport } from '@conduit/contracts';
import type { NodeColumnsById, RunEntity, StoredRunNode } from './run.entity.js';
import type { RunEventType } from './run.mapper.js';

/** The columns a transition may change. */
export type RunChanges = Partial<
  Pick<
    RunEntity,
    | 'status'
    | 'attempt'
    | 'startedAt'
    | 'finishedAt'
    | 'error'
    | 'nodes'
    | 'nodeColumns'
    | 'stats'
    | 'lastEventAt'
    | 'epoch'
  >
>;

type ReportedNode = Extract<RunReport, { type: 'run.node' }>['node'];

export type ReportDecision =
  /** `fenced`: the report's epoch is not the run's current one (another execution holds the run, or it was ended). */
  { apply: false; reason: string; fenced?: true } | { apply: true; changes: RunChanges; event: RunEventType | null };

export function isFinal(run: Pick<RunEntity, 'status'>): boolean {
  return FINAL_RUN_STATUSES.includes(run.status);
}

/** The nodes a run starts with: one `pending` entry per DAG node of its snapshot. */
export function initialNodes(dag: Record<string, unknown>): StoredRunNode[] {
  const nodes = Array.isArray(dag['nodes']) ? (dag['nodes'] as unknown[]) : [];
  return nodes.flatMap((n) => {
    if (!n || typeof n !== 'object') return [];
    const { id, type } = n as { id?: unknown; type?: unknown };
    if (typeof id !== 'string') return [];
    return [
      {
        id,
        type: typeof type === 'string' ? type : 'unknown',
        status: 'pending' as const,
        started_at: null,
        finished_at: null,
        attempts: 0,
        rows_in: 0,
        rows_out: 0,
        output: null,
        error: null,
      },
    ];
  });
}

/** Nodes not yet over when the run ends another way (cancel, reaper) become `canceled`. */
export function closeNodes(nodes: StoredRunNode[], at: Date): StoredRunNode[] {
  return nodes.map((n) =>
    n.status === 'pending' || n.status === 'running'
      ? { ...n, status: 'canceled' as const, finished_at: n.finished_at ?? at.toISOString() }
      : n,
  );
}

/** A reported node as `nodes` keeps it, without its columns. */
function storedNode(node: ReportedNode): StoredRunNode {
  const { columns: _columns, ...stored } = node;
  return stored;
}

/**
 * The columns by node id after reports of `nodes`: a node that carries columns (null: no output) replaces its entry;
 * one without the field (an executor older than it) leaves it as it was.
 */
export function withNodeColumns(known: NodeColumnsById, nodes: readonly ReportedNode[]): NodeColumnsById {
  const next: NodeColumnsById = { ...known };
  for (const { id, columns } of nodes) {
    if (columns === undefined) continue;
    if (columns === null) delete next[id];
    else next[id] = columns;
  }
  return next;
}

function parseAt(at: string, fallback: Date): Date {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? fallback : d;
}

/**
 * The state machine of a run fed by executor reports: what a report changes, or why it is ignored.
 * A report of another epoch than the run's is fenced; reports for a final run, or from an older attempt, are stale.
 */
export function decideReport(run: RunEntity, report: RunReport, now: Date): ReportDecision {
  if (report.epoch !== run.epoch)
    return { apply: false, fenced: true, reason: `epoch ${report.epoch} is not the run's current epoch ${run.epoch}` };
  if (isFinal(run)) return { apply: false, reason: `the run is already ${run.status}` };
  if (report.attempt < run.attempt)
    return { apply: false, reason: `attempt ${report.attempt} is older than the run's attempt ${run.attempt}` };
  const at = parseAt(report.at, now);
  switch (report.type) {
    case 'run.started': {
      if (run.status === 'running' && report.attempt === run.attempt)
        return { apply: false, reason: 'the run is already running in this attempt' };
      // A higher attempt is a takeover after an executor died: its nodes start over.
      const restarted = run.status === 'running';
      return {
        apply: true,
        changes: {
          status: 'running',
          attempt: report.attempt,
          startedAt: run.startedAt ?? at,
          lastEventAt: now,
          ...(restarted ? { nodes: initialNodes(run.dag), nodeColumns: {} } : {}),
        },
        event: 'run.started',
      };
    }
    case 'run.node': {
      if (report.attempt > run.attempt)
        return { apply: false, reason: 'a node report of an attempt that has not started' };
      const known = run.nodes.find((n) => n.id === report.node.id);
      // Reports can be taken out of order by concurrent workers: a node never moves back to an earlier state.
      if (known && nodeProgress(report.node) < nodeProgress(known))
        return { apply: false, reason: `an earlier state of node "${known.id}"` };
      const reported = storedNode(report.node);
      const nodes = run.nodes.some((n) => n.id === reported.id)
        ? run.nodes.map((n) => (n.id === reported.id ? reported : n))
        : [...run.nodes, reported];
      const columns =
        report.node.columns === undefined ? {} : { nodeColumns: withNodeColumns(run.nodeColumns, [report.node]) };
      return { apply: true, changes: { nodes, ...columns, lastEventAt: now }, event: null };
    }
    case 'run.finished': {
      const error: RunError | null = report.error;
      return {
        apply: true,
        changes: {
          status: report.status,
          attempt: report.attempt,
          // A finish that overtook its start (reports of one run can be taken by different replicas) still has a start.
          startedAt: run.startedAt ?? earliestStart(report.nodes) ?? at,
          finishedAt: at,
          error,
          nodes: report.nodes.map(storedNode),
          nodeColumns: withNodeColumns(run.nodeColumns, report.nodes),
          stats: report.stats,
          lastEventAt: now,
        },
        event: `run.${report.status}`,
      };
    }
  }
}

/** How far a node has got: its attempts, then pending < running < over. */
function nodeProgress(node: Pick<StoredRunNode, 'attempts' | 'status'>): number {
  const phase = node.status === 'pending' ? 0 : node.status === 'running' ? 1 : 2;
  return node.attempts * 3 + phase;
}

function earliestStart(nodes: readonly StoredRunNode[]): Date | null {
  const starts = nodes
    .flatMap((n) => (n.started_at ? [new Date(n.started_at).getTime()] : []))
    .filter((t) => !Number.isNaN(t));
  return starts.length > 0 ? new Date(Math.min(...starts)) : null;
}
