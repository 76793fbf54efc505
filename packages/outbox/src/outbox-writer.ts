import type { EntityManager } from 'typeorm';

/** A message for the outbox table: its queue job id, its payload, and the service's own extra columns. */
export interface OutboxMessage {
  /** The queue job id it is published with (an event id, a run id): a second publish is deduplicated. */
  message_id: string;
  payload: unknown;
  created_at: Date | string;
  /** Extra columns of the service's outbox table (e.g. `kind`, `run_id`); names come from code, never from input. */
  [column: string]: unknown;
}

const COLUMN = /^[a-z_][a-z0-9_]*$/;

/**
 * Writes a message inside the caller's transaction: it is published only if that transaction commits, and always
 * once it has (the relay retries until the queue has it). The table is `outbox` in the connection's search path.
 */
export async function writeOutbox(manager: EntityManager, message: OutboxMessage): Promise<void> {
  const columns = Object.keys(message);
  for (const column of columns) if (!COLUMN.test(column)) throw new Error(`outbox: "${column}" is not a column name`);
  const values = columns.map((c) => (c === 'payload' ? JSON.stringify(message[c]) : message[c]));
  const placeholders = columns.map((_, i) => `$${i + 1}`).join(', ');
  await manager.query(`INSERT INTO outbox (${columns.join(', ')}) VALUES (${placeholders})`, values);
}
