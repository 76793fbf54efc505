import type { EntityManager } from 'typeorm';
import type { RunCommand, RunEvent } from '@conduit/contracts';
import { writeOutbox, type OutboxMessage } from '@conduit/outbox';
import { withJobTrace } from '@conduit/service-kit';

// Both carry the trace context of the request they are written under (withJobTrace): the relay publishes later,
// outside it, and the executor's run (or the event's consumers) must continue the trigger's trace.

/** The outbox message of a run command. */
export function runCommandMessage(command: RunCommand, at: Date): OutboxMessage {
  return {
    kind: 'run_command',
    message_id: command.run_id,
    run_id: command.run_id,
    payload: withJobTrace(command),
    created_at: at,
  };
}

/** The outbox message of a run event. */
export function runEventMessage(event: RunEvent): OutboxMessage {
  return {
    kind: 'run_event',
    message_id: event.event_id,
    run_id: event.run.id,
    payload: withJobTrace(event),
    created_at: event.created_at,
  };
}

/** A run command for the executors, published only if the caller's transaction commits. */
export function addRunCommand(m: EntityManager, command: RunCommand, at: Date): Promise<void> {
  return writeOutbox(m, runCommandMessage(command, at));
}

/**
 * Withdraws a canceled run's command row the relay has not published (marked as published, so no turn queues it).
 * A turn that holds the row has added its job before it commits, and this UPDATE waits for that commit: either way
 * the job, if any, exists before the cancel commits, so the cancel's removal of it (run-cancel-signals.ts) is not
 * undone by a late publish.
 */
export async function withdrawRunCommand(m: EntityManager, runId: string): Promise<void> {
  await m.query(
    `UPDATE outbox SET published_at = now() WHERE kind = 'run_command' AND run_id = $1 AND published_at IS NULL`,
    [runId],
  );
}

/** A run event for monitoring and the webhook dispatcher, published only if the caller's transaction commits. */
export function addRunEvent(m: EntityManager, event: RunEvent): Promise<void> {
  return writeOutbox(m, runEventMessage(event));
}

/**
 * The INSERT of outbox rows from a JSON document of messages (outboxJson) given as the parameter `param`: one
 * statement for any number, in the document's order. A JSON document, not an array of JSON texts, which would cost
 * escaping on both sides.
 */
export const OUTBOX_INSERT_FROM_JSON = (
  param: string,
) => `INSERT INTO outbox (kind, message_id, run_id, payload, created_at)
     SELECT kind, message_id, run_id, payload, created_at
       FROM json_to_recordset(${param}::json) AS x(kind text, message_id text, run_id text, payload jsonb, created_at timestamptz)`;

/** The messages as OUTBOX_INSERT_FROM_JSON reads them. */
export function outboxJson(messages: readonly OutboxMessage[]): string {
  return JSON.stringify(
    messages.map((x) => ({
      kind: x['kind'],
      message_id: x.message_id,
      run_id: x['run_id'],
      payload: x.payload,
      created_at: x.created_at,
    })),
  );
}

/** Many run commands and events in one statement (in this order, so the relay publishes them so), in the caller's transaction. */
export async function addOutboxMessages(m: EntityManager, messages: readonly OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  await m.query(OUTBOX_INSERT_FROM_JSON('$1'), [outboxJson(messages)]);
}
