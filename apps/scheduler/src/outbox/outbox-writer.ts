import type { EntityManager } from 'typeorm';
import type { RunCommand, RunEvent } from '@conduit/contracts';
import { OutboxMessageEntity } from './outbox-message.entity.js';
import { entityValues } from '@conduit/service-kit';

/**
 * Writes outbox messages inside the caller's transaction: they are published only if it commits, and always
 * once it has (the relay retries until BullMQ has them).
 */
export async function addRunCommand(m: EntityManager, command: RunCommand, at: Date): Promise<void> {
  await m.insert(
    OutboxMessageEntity,
    entityValues<OutboxMessageEntity>({ kind: 'run_command', messageId: command.run_id, runId: command.run_id, payload: command, createdAt: at, publishedAt: null }),
  );
}

export async function addRunEvent(m: EntityManager, event: RunEvent): Promise<void> {
  await m.insert(
    OutboxMessageEntity,
    entityValues<OutboxMessageEntity>({ kind: 'run_event', messageId: event.event_id, runId: event.run.id, payload: event, createdAt: new Date(event.created_at), publishedAt: null }),
  );
}
