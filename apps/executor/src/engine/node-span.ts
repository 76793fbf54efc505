import { inSpan, SpanKind, SpanStatusCode } from '@conduit/service-kit';
import type { DagNode } from '@conduit/dag';
import type { NodeRecord } from './node-record.js';

/**
 * Runs a node's execution in its span, `node <id>` (a child of the run's span, and the parent of the node's
 * connector calls), ended with the node's outcome: type, rows and status, an error status with its code on failure.
 * The execution itself never throws: its outcome is in the record.
 */
export function inNodeSpan(node: DagNode, record: NodeRecord, execute: () => Promise<void>): Promise<void> {
  return inSpan(
    `node ${node.id}`,
    SpanKind.INTERNAL,
    undefined,
    async (span) => {
      await execute();
      const outcome = record.toJSON();
      span.setAttributes({
        'conduit.node.id': node.id,
        'conduit.node.type': node.type,
        'conduit.node.status': outcome.status,
        'conduit.node.rows_in': outcome.rows_in,
        'conduit.node.rows_out': outcome.rows_out,
        'conduit.node.attempts': outcome.attempts,
      });
      if (outcome.status === 'failed') {
        span.setAttribute('error.type', outcome.error?.code ?? 'node_failed');
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error?.message ?? 'failed' });
      }
    },
    '@conduit/executor',
  );
}
