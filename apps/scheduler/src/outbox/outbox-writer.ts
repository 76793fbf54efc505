import type { EntityManager } from 'typeorm';
import type { RunCommand, RunEvent } from '@conduit/contracts';
import { writeOutbox } from '@conduit/outbox';

/** A run command for the executors, published only if the caller's transaction commits. */
export function addRunCommand(m: EntityManager, command: RunCommand, at: Date): Promise<void> {
  return writeOutbox(m, { kind: 'run_command', message_id: command.run_id, run_id: command.run_id, payload: command, created_at: at });
}

/** A run event for monitoring and the webhook dispatcher, published only if the caller's transaction commits. */
export function addRunEvent(m: EntityManager, event: RunEvent): Promise<void> {
  return writeOutbox(m, { kind: 'run_event', message_id: event.event_id, run_id: event.run.id, payload: event, created_at: event.created_at });
}
