// The message formats on Redis: request fields of a stream entry and the JSON body of a reply.
import type { PacketMetadata } from '@nestjs/microservices';

/** One entry of a service's request stream. Events (from `emit`) carry neither `id` nor `reply`. */
export interface RequestMessage {
  /** Request id, unique per call; absent for events. */
  id?: string;
  pattern: string;
  data: unknown;
  /** Pub/sub channel the caller listens on; absent for events. */
  reply?: string;
  /** Epoch ms after which the caller no longer waits; absent for events. */
  deadline?: number;
  metadata?: PacketMetadata;
}

/** What the server publishes on the caller's reply channel. */
export interface ReplyBody {
  id: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

/** Flat field/value list for XADD. */
export function encodeRequest(message: RequestMessage): string[] {
  const fields = ['pattern', message.pattern, 'data', JSON.stringify(message.data ?? null)];
  if (message.id !== undefined) fields.push('id', message.id);
  if (message.reply !== undefined) fields.push('reply', message.reply);
  if (message.deadline !== undefined) fields.push('deadline', String(message.deadline));
  if (message.metadata !== undefined) fields.push('metadata', JSON.stringify(message.metadata));
  return fields;
}

/** Parses the flat field/value list XREADGROUP returns; throws on a malformed entry. */
export function decodeRequest(flat: string[]): RequestMessage {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i] as string, flat[i + 1] as string);
  const pattern = fields.get('pattern');
  const data = fields.get('data');
  if (pattern === undefined || data === undefined) {
    throw new Error('stream entry has no pattern or data field');
  }
  const deadline = fields.get('deadline');
  const metadata = fields.get('metadata');
  const message: RequestMessage = { pattern, data: JSON.parse(data) as unknown };
  const id = fields.get('id');
  const reply = fields.get('reply');
  if (id !== undefined) message.id = id;
  if (reply !== undefined) message.reply = reply;
  if (deadline !== undefined) message.deadline = Number(deadline);
  if (metadata !== undefined) message.metadata = JSON.parse(metadata) as PacketMetadata;
  return message;
}

/** Errors do not survive JSON.stringify (it yields `{}`), so keep their name and message. */
export function toTransportableError(err: unknown): unknown {
  if (err instanceof Error) {
    return { ...err, name: err.name, message: err.message };
  }
  return err ?? 'Unknown error';
}
