// Run nodes as a run records them (api.md "RunNode"): what the resume planner reads, what claims hand back and what
// reports carry, built with only the fields a test cares about.
import type { RunNode } from '@conduit/contracts';

/** A node at `status`: tried once unless pending, nothing read or written, no times, output or error. */
export function runNode(id: string, type: string, status: RunNode['status'], extra: Partial<RunNode> = {}): RunNode {
  return {
    id,
    type,
    status,
    started_at: null,
    finished_at: null,
    attempts: status === 'pending' ? 0 : 1,
    rows_in: 0,
    rows_out: 0,
    output: null,
    error: null,
    columns: null,
    ...extra,
  };
}
