import { PassThrough } from 'node:stream';
import type { Run, RunLogLine, RunNode } from '@conduit/sdk';
import { Output } from '../output.js';
import { RunView } from './run-view.js';

const at = (second: number) => `2026-11-22T10:15:${String(second).padStart(2, '0')}.000Z`;

function node(id: string, status: RunNode['status'], started?: number, finished?: number): RunNode {
  return {
    id,
    status,
    started_at: started === undefined ? null : at(started),
    finished_at: finished === undefined ? null : at(finished),
    rows_in: 0,
    rows_out: 0,
    error: null,
  } as RunNode;
}

function run(status: Run['status'], nodes: RunNode[]): Run {
  return {
    id: 'run_1',
    job_id: 'job_1',
    status,
    duration_ms: null,
    error: null,
    nodes,
    stats: { rows_read: 0, rows_written: 0 },
  } as unknown as Run;
}

const log = (second: number, message: string): RunLogLine => ({
  seq: second,
  ts: at(second),
  level: 'info',
  node_id: 'a',
  message,
});

describe('RunView off a terminal', () => {
  it('prints a node state after the log lines written before it, though the poll saw it first', () => {
    const stdout = new PassThrough();
    const view = new RunView(new Output('text', stdout as unknown as NodeJS.WriteStream, stdout as never, {}));
    view.update(run('running', [node('a', 'running', 1)]));
    view.update(run('running', [node('a', 'succeeded', 1, 3)]));
    view.log(log(2, 'read 10 rows'));
    view.log(log(4, 'after'));
    view.finish(run('succeeded', [node('a', 'succeeded', 1, 3)]));
    const lines = String(stdout.read()).split('\n');
    expect(lines.slice(0, 4)).toEqual([
      expect.stringMatching(/^node a: running/),
      expect.stringContaining('read 10 rows'),
      expect.stringMatching(/^node a: succeeded/),
      expect.stringContaining('after'),
    ]);
  });
});
