import { describe, expect, it } from '@jest/globals';
import type { RunReport } from '@conduit/contracts';
import { closeNodes, decideReport, initialNodes } from './run-transitions.js';
import type { RunEntity } from './run.entity.js';

const dag = {
  nodes: [
    { id: 'a', type: 'source', config: {} },
    { id: 'b', type: 'sink', config: {} },
  ],
  edges: [],
};

function run(overrides: Partial<RunEntity> = {}): RunEntity {
  const now = new Date('2026-01-01T00:00:00.000Z');
  return Object.assign(
    {
      id: 'run_1',
      tenantId: 't',
      jobId: 'job_1',
      pipelineId: 'pln_1',
      pipelineVersion: 1,
      dag,
      status: 'queued',
      trigger: 'manual',
      parameters: {},
      attempt: 1,
      queuedAt: now,
      startedAt: null,
      finishedAt: null,
      error: null,
      nodes: initialNodes(dag),
      stats: { rows_read: 0, rows_written: 0 },
      nodeColumns: {},
      lastEventAt: now,
      tickId: null,
      requeues: 0,
      epoch: 1,
      claimedBy: 'x',
      claimAttempt: 1,
      leaseUntil: null,
      idempotencyKey: null,
      idempotencyFingerprint: null,
    } satisfies RunEntity,
    overrides,
  );
}

const at = '2026-01-01T00:01:00.000Z';
/** What every report of run_1's first attempt (epoch 1) carries; each kind adds its own fields. */
const envelope = (eventId: string) => ({
  event_id: eventId,
  run_id: 'run_1',
  tenant_id: 't',
  attempt: 1,
  epoch: 1,
  at,
});
type NodeState = Extract<RunReport, { type: 'run.node' }>['node'];
/** Node b (the sink) running its first attempt; each test says what differs. */
const nodeState = (changes: Partial<NodeState> = {}): NodeState => ({
  id: 'b',
  type: 'sink',
  status: 'running',
  started_at: at,
  finished_at: null,
  attempts: 1,
  rows_in: 0,
  rows_out: 0,
  output: null,
  error: null,
  ...changes,
});
const reportNode = (eventId: string, node: NodeState): RunReport => ({
  type: 'run.node',
  ...envelope(eventId),
  node,
});
const started: RunReport = { type: 'run.started', ...envelope('e1'), executor_id: 'x' };
const finished: RunReport = {
  type: 'run.finished',
  ...envelope('e2'),
  status: 'succeeded',
  error: null,
  stats: { rows_read: 1, rows_written: 1 },
  nodes: [],
};

describe('decideReport', () => {
  const now = new Date('2026-01-01T00:02:00.000Z');

  it("refuses (fenced) a report of another epoch than the run's, whatever its attempt or the run's state", () => {
    const nodeReport = reportNode('e5', nodeState({ status: 'succeeded', finished_at: at, rows_in: 1, rows_out: 1 }));
    // The reaper failed the run (epoch 2), or a takeover claimed it (epoch 2): the first execution writes nothing more.
    for (const status of ['running', 'failed'] as const) {
      for (const report of [nodeReport, finished, started])
        expect(decideReport(run({ status, epoch: 2 }), report, now)).toMatchObject({ apply: false, fenced: true });
    }
    // An older epoch with a newer attempt number is still fenced: the epoch alone decides.
    expect(
      decideReport(run({ status: 'running', epoch: 3 }), { ...finished, attempt: 5, epoch: 2 }, now),
    ).toMatchObject({ apply: false, fenced: true });
    expect(decideReport(run({ status: 'running', epoch: 2 }), { ...nodeReport, epoch: 2 }, now)).toMatchObject({
      apply: true,
    });
    expect(decideReport(run({ status: 'running', epoch: 2 }), { ...finished, epoch: 2 }, now)).toMatchObject({
      apply: true,
      event: 'run.succeeded',
    });
  });

  it('starts a queued run and finishes a running one, each with its event', () => {
    expect(decideReport(run(), started, now)).toMatchObject({
      apply: true,
      event: 'run.started',
      changes: { status: 'running', startedAt: new Date(at) },
    });
    expect(decideReport(run({ status: 'running', startedAt: new Date(at) }), finished, now)).toMatchObject({
      apply: true,
      event: 'run.succeeded',
      changes: { status: 'succeeded' },
    });
  });

  it('ignores reports for a final run, from an older attempt, or a repeated start', () => {
    for (const status of ['succeeded', 'failed', 'canceled'] as const)
      expect(decideReport(run({ status }), started, now).apply).toBe(false);
    expect(decideReport(run({ status: 'running', attempt: 2 }), finished, now).apply).toBe(false);
    expect(decideReport(run({ status: 'running' }), started, now).apply).toBe(false);
  });

  it('restarts the nodes when a newer attempt takes a running run over', () => {
    const known = { a: [{ name: 'id', type: 'INTEGER' }] };
    const decision = decideReport(
      run({ status: 'running', nodes: closeNodes(initialNodes(dag), now), nodeColumns: known }),
      { ...started, attempt: 2 },
      now,
    );
    expect(decision).toMatchObject({ apply: true, changes: { attempt: 2, nodeColumns: {} } });
    if (decision.apply) expect(decision.changes.nodes?.map((n) => n.status)).toEqual(['pending', 'pending']);
  });

  it('updates one node without a state change or an event', () => {
    const decision = decideReport(run({ status: 'running' }), reportNode('e3', nodeState()), now);
    expect(decision).toMatchObject({ apply: true, event: null });
    if (decision.apply) expect(decision.changes.nodes?.map((n) => n.status)).toEqual(['pending', 'running']);
  });

  it('never moves a node back to an earlier state (reports taken out of order), but lets a retry run it again', () => {
    const node = (status: 'running' | 'succeeded' | 'failed', attempts: number) =>
      nodeState({ status, finished_at: status === 'running' ? null : at, attempts });
    const report = (n: NodeState) => reportNode('e4', n);
    const withB = (n: NodeState) => run({ status: 'running', nodes: [initialNodes(dag)[0]!, n] });
    expect(decideReport(withB(node('succeeded', 1)), report(node('running', 1)), now)).toMatchObject({
      apply: false,
      reason: 'an earlier state of node "b"',
    });
    expect(decideReport(withB(node('running', 2)), report(node('running', 1)), now).apply).toBe(false);
    expect(decideReport(withB(node('running', 1)), report(node('running', 2)), now).apply).toBe(true);
    expect(decideReport(withB(node('running', 1)), report(node('succeeded', 1)), now).apply).toBe(true);
  });
});

describe('node columns', () => {
  const now = new Date('2026-01-01T00:02:00.000Z');
  const amount = [{ name: 'amount', type: 'DECIMAL(12,2)', source_type: 'numeric(12,2)' }];
  const node = (id: string, extra: Partial<NodeState>) =>
    nodeState({ id, type: 'source', status: 'succeeded', finished_at: at, rows_out: 1, ...extra });
  const nodeReport = (n: NodeState) => reportNode('e5', n);

  it("keeps a reported node's columns beside the nodes, by node id, and the node itself without them", () => {
    const decision = decideReport(run({ status: 'running' }), nodeReport(node('a', { columns: amount })), now);
    expect(decision.apply && decision.changes).toMatchObject({ nodeColumns: { a: amount } });
    if (decision.apply) expect(decision.changes.nodes?.find((n) => n.id === 'a')).not.toHaveProperty('columns');
  });

  it('leaves known columns alone for a report without the field (an older executor), and drops them for null', () => {
    const running = run({ status: 'running', nodeColumns: { a: amount } });
    const old = decideReport(running, nodeReport(node('a', {})), now);
    expect(old.apply && 'nodeColumns' in old.changes).toBe(false);
    const none = decideReport(running, nodeReport(node('a', { columns: null })), now);
    expect(none.apply && none.changes.nodeColumns).toEqual({});
  });

  it("takes the finished report's columns over what node reports said, keeping nodes it says nothing about", () => {
    const id = [{ name: 'id', type: 'BIGINT' }];
    const report: RunReport = { ...finished, nodes: [node('a', {}), node('b', { columns: id })] };
    const decision = decideReport(run({ status: 'running', nodeColumns: { a: amount } }), report, now);
    expect(decision.apply && decision.changes.nodeColumns).toEqual({ a: amount, b: id });
    if (decision.apply) expect(decision.changes.nodes?.every((n) => !('columns' in n))).toBe(true);
  });
});
