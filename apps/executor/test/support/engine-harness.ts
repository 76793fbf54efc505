// Runs the engine directly against the suite's schema, collecting log lines and node changes.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectorPools } from '@conduit/connectors';
import type { ResolvedConnector, RunNode } from '@conduit/contracts';
import { DEFAULT_RUN_MEMORY_LIMIT, parseSize, runMemory } from '../../src/data/run-memory.js';
import { executeRun, type RunOutcome } from '../../src/engine/run-engine.js';
import type { RunLogLevel } from '../../src/engine/run-log-sink.js';

export const CONNECTOR_ID = 'con_pg';
export const DATA_DIR = join(tmpdir(), 'conduit-executor-tests');
export const TEST_TENANT = 'tnt_engine_test';
/** The executor's default limit: the tests run what a default deployment runs. */
export const RUN_MEMORY_BYTES = parseSize(DEFAULT_RUN_MEMORY_LIMIT)!;

export interface LoggedLine {
  level: RunLogLevel;
  node_id: string | null;
  message: string;
}

export interface EngineRun {
  outcome: RunOutcome;
  lines: LoggedLine[];
  changes: RunNode[];
}

export async function runDag(
  dag: Record<string, unknown>,
  config: Record<string, unknown>,
  opts: {
    signal?: AbortSignal;
    runId?: string;
    connectors?: ResolvedConnector[];
    parameters?: Record<string, unknown>;
    tenantId?: string;
    /** The executor's connection pools; default none (every node connects anew). */
    pools?: ConnectorPools;
  } = {},
): Promise<EngineRun> {
  const lines: LoggedLine[] = [];
  const changes: RunNode[] = [];
  const connectors = new Map<string, ResolvedConnector>([
    [CONNECTOR_ID, { id: CONNECTOR_ID, type: 'postgres', config }],
  ]);
  for (const extra of opts.connectors ?? []) connectors.set(extra.id, extra);
  const outcome = await executeRun({
    runId: opts.runId ?? 'run_test',
    tenantId: opts.tenantId ?? TEST_TENANT,
    dag,
    ...(opts.parameters === undefined ? {} : { parameters: opts.parameters }),
    connectors,
    workspace: { dataDir: DATA_DIR, memory: runMemory(RUN_MEMORY_BYTES) },
    signal: opts.signal ?? new AbortController().signal,
    log: { write: (level, node_id, message) => lines.push({ level, node_id, message }) },
    onNodeChange: (node) => changes.push(node),
    retryBackoffMs: 50,
    pools: opts.pools,
  });
  return { outcome, lines, changes };
}

export function nodeOf(run: EngineRun, id: string): RunNode {
  const node = run.outcome.nodes.find((n) => n.id === id);
  if (!node) throw new Error(`no node ${id} in the outcome`);
  return node;
}
