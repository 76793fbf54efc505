/** What a node runner gets for one attempt, and what it answers. */
import type { ConnectorDriver, PoolScope } from '@conduit/connectors';
import type { ResolvedConnector } from '@conduit/contracts';
import type { DagNode } from '@conduit/dag';
import type { RunWorkspace } from '../data/run-workspace.js';
import type { NodeColumns } from '../data/table-columns.js';
import type { RunLogLevel } from './run-log-sink.js';

export interface NodeContext {
  node: DagNode;
  /** The run's tenant: file-based connectors work in its folder of the data root. */
  tenantId: string;
  /** Where the node's connector takes its connections from: pass it with `tenantId` to every driver call. */
  pool?: PoolScope | undefined;
  /**
   * Ids of the nodes feeding this one whose output exists (not skipped) and is a table or view of the run (a source's,
   * a transform's, a decision's: table-inputs.ts), in DAG order.
   */
  inputs: string[];
  workspace: RunWorkspace;
  /** Aborts on cancel, on lock loss and when the attempt times out. */
  signal: AbortSignal;
  /** The node's connector with its driver; throws a NodeFailure when missing or unfit. */
  connector(role: 'read' | 'write' | 'execute'): { connector: ResolvedConnector; driver: ConnectorDriver };
  /** The connector of an llm decision; throws a NodeFailure when missing or unable to act as llm. */
  llmConnector(): ResolvedConnector;
  /** The run's parameters (prompt templates read them). */
  parameters: Readonly<Record<string, unknown>>;
  log(level: RunLogLevel, message: string): void;
  /** Rows per batch handed to a sink's driver. */
  sinkBatchRows: number;
  /**
   * A source only, when its one consumer is a sink whose driver takes COPY CSV: the sink's id and whether its target
   * takes CSV as the typed write would (asked when the source starts); then the rows go to a workspace file
   * (csv-handoff.ts), else through the run's DuckDB as for any other sink.
   */
  csvHandoff: CsvHandoff | undefined;
}

export interface NodeResult {
  rows_in: number;
  rows_out: number;
  output: Record<string, unknown> | null;
  /** Decision nodes: the choice made. */
  choice?: string;
  /** The node's output columns (a sink's: those it wrote), for Get Run Status; absent when it has no output. */
  columns?: NodeColumns;
}

export type NodeRunner = (ctx: NodeContext) => Promise<NodeResult>;

export interface CsvHandoff {
  sinkId: string;
  ready(): Promise<boolean>;
}
