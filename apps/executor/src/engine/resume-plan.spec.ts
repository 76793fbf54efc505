import { branch, chain } from '@conduit/testing';
import { runNode as recorded } from '../../test/support/run-nodes.js';
import { planRun } from './run-plan.js';
import { planResume } from './resume-plan.js';

const n = (id: string, type: string) => ({ id, type, config: {} });

// src -> clean -> route (decision: big | small) -> big_sink (when big), small_sink (when small); src -> audit (sql)
const dag = {
  nodes: [
    n('src', 'source'),
    n('clean', 'transform'),
    n('route', 'decision'),
    n('big_sink', 'sink'),
    n('small_sink', 'sink'),
    n('audit', 'sql'),
  ],
  edges: [
    ...chain('src', 'clean', 'route'),
    ...branch('route', 'big', 'big_sink'),
    ...branch('route', 'small', 'small_sink'),
    ...chain('src', 'audit'),
  ],
};
const plan = planRun(dag);
/** The history up to the decision: src and clean succeeded, route chose big. */
const decidedBig = [
  recorded('src', 'source', 'succeeded'),
  recorded('clean', 'transform', 'succeeded'),
  recorded('route', 'decision', 'succeeded', { output: { choice: 'big', reason: 'r' } }),
];
const keys = (m: ReadonlyMap<string, unknown>) => [...m.keys()].sort();

describe('planResume', () => {
  it('runs everything on a first execution', () => {
    const resume = planResume(plan, []);
    expect([resume.kept.size, resume.rebuilt.size, resume.choices.size]).toEqual([0, 0, 0]);
  });

  it('keeps a committed sink and the nodes nothing unfinished reads; the decision keeps its choice', () => {
    const resume = planResume(plan, [
      ...decidedBig,
      recorded('big_sink', 'sink', 'succeeded', { rows_out: 7 }),
      recorded('small_sink', 'sink', 'skipped'),
      recorded('audit', 'sql', 'running'),
    ]);
    // audit runs again, but a sql node reads no input table: src's output need not exist again.
    expect(keys(resume.kept)).toEqual(['big_sink', 'clean', 'route', 'src']);
    expect(resume.rebuilt.size).toBe(0);
    expect(resume.choices.get('route')).toBe('big');
    expect(resume.kept.get('big_sink')?.rows_out).toBe(7);
  });

  it('re-runs succeeded upstream nodes, transitively, only for a node that must still run', () => {
    const resume = planResume(plan, [
      ...decidedBig,
      recorded('big_sink', 'sink', 'running', { attempts: 2 }),
      recorded('small_sink', 'sink', 'skipped'),
      recorded('audit', 'sql', 'succeeded'),
    ]);
    expect(keys(resume.rebuilt)).toEqual(['clean', 'route', 'src']);
    expect(keys(resume.kept)).toEqual(['audit']);
    expect(resume.choices.get('route')).toBe('big');
    // The sink runs again, counting on from its recorded attempts.
    expect(resume.attempts.get('big_sink')).toBe(2);
  });

  it('rebuilds nothing for a branch the decision did not choose', () => {
    const resume = planResume(plan, [
      ...decidedBig,
      recorded('big_sink', 'sink', 'succeeded'),
      recorded('small_sink', 'sink', 'pending'),
      recorded('audit', 'sql', 'succeeded'),
    ]);
    expect(resume.rebuilt.size).toBe(0);
    expect(keys(resume.kept)).toEqual(['audit', 'big_sink', 'clean', 'route', 'src']);
  });

  it('never re-runs a succeeded sink or sql node for its output, and runs failed or canceled nodes again', () => {
    const withDdl = planRun({
      nodes: [n('a', 'source'), n('ddl', 'sql'), n('b', 'transform')],
      edges: [
        { from: 'ddl', to: 'b' },
        { from: 'a', to: 'b' },
      ],
    });
    const resume = planResume(withDdl, [
      recorded('a', 'source', 'failed'),
      recorded('ddl', 'sql', 'succeeded'),
      recorded('b', 'transform', 'canceled'),
    ]);
    expect(keys(resume.kept)).toEqual(['ddl']);
    expect(resume.rebuilt.size).toBe(0);
  });
});
