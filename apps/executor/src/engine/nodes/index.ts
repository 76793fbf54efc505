import type { NodeRunner } from '../node-context.js';
import { runDecision } from './decision.node.js';
import { runSink } from './sink.node.js';
import { runSource } from './source.node.js';
import { runSql } from './sql.node.js';
import { runTransform } from './transform.node.js';

/** The runner of each node type. */
export const NODE_RUNNERS: Readonly<Record<string, NodeRunner>> = {
  source: runSource,
  transform: runTransform,
  sink: runSink,
  sql: runSql,
  decision: runDecision,
};
