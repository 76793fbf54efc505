// The message formats on Redis: the fields of a request's stream entry and the JSON of the replies.
import { randomUUID } from 'node:crypto';
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
  /** W3C Trace Context of the caller's span, when tracing is on (see trace-context.ts). */
  traceparent?: string;
  tracestate?: string;
}

/**
 * What the server publishes on the caller's reply channel: one reply, or (from {@link encodeReplies}) a JSON array
 * of the replies to one caller that finished together.
 */
export interface ReplyBody {
  id: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

/** The one field of an entry: the whole message as JSON, so an entry is one argument and the server parses once. */
export const MESSAGE_FIELD = 'm';

/** The value of an entry's {@link MESSAGE_FIELD}. */
export function encodeRequest(message: RequestMessage): string {
  // No spread copy on the usual path: it would double the cost of the stringify.
  return JSON.stringify(message.data === undefined ? { ...message, data: null } : message);
}

/**
 * Parses the field/value list XREADGROUP returns; throws on a malformed entry. Also reads the older format of one
 * field per property (`pattern`, `data` as JSON, `id`, `reply`, `deadline`, `metadata` as JSON), so entries written
 * by a replica not yet upgraded are still served during a rolling deployment.
 */
export function decodeRequest(flat: string[]): RequestMessage {
  if (flat.length === 2 && flat[0] === MESSAGE_FIELD)
    return checked(JSON.parse(flat[1] as string) as Partial<RequestMessage>);
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i] as string, flat[i + 1] as string);
  const data = fields.get('data');
  const deadline = fields.get('deadline');
  const metadata = fields.get('metadata');
  return checked({
    pattern: fields.get('pattern'),
    ...(data !== undefined && { data: JSON.parse(data) as unknown }),
    ...(fields.has('id') && { id: fields.get('id') }),
    ...(fields.has('reply') && { reply: fields.get('reply') }),
    ...(deadline !== undefined && { deadline: Number(deadline) }),
    ...(metadata !== undefined && { metadata: JSON.parse(metadata) as PacketMetadata }),
  });
}

function checked(message: Partial<RequestMessage>): RequestMessage {
  if (typeof message.pattern !== 'string' || !('data' in message))
    throw new Error('stream entry has no pattern or data field');
  return message as RequestMessage;
}

/**
 * Replies longer than this (characters of JSON) travel by reference: stored under a key of their own for
 * REPLY_REFERENCE_TTL_MS, and the key published instead. Redis drops a subscriber whose pending pub/sub output passes
 * 32 MB (8 MB for a minute): a page of large pipelines did, and with it every other call waiting on that caller's
 * connection (other tenants' requests through the same gateway). A reference keeps the subscription's messages small.
 */
export const REPLY_BY_REFERENCE_CHARS = 256 * 1024;
/** Longer than any call waits for its reply; the caller takes the key as it reads it. */
export const REPLY_REFERENCE_TTL_MS = 120_000;

/** What is published for a reply stored under `key`: no reply has a `ref`, so the two never meet. */
export function encodeReplyReference(key: string): string {
  return JSON.stringify({ ref: key });
}

/** The key of a published reply reference, or undefined for anything else (a reply, or what is no JSON at all). */
export function replyReferenceOf(body: string): string | undefined {
  if (!body.startsWith('{"ref":')) return undefined;
  try {
    const { ref } = JSON.parse(body) as { ref?: unknown };
    return typeof ref === 'string' ? ref : undefined;
  } catch {
    // Not JSON: the reply decoder says so (onReply), as for any malformed message.
    return undefined;
  }
}

/** The two commands a reply needs, on a connection or in a MULTI; `R` is what PUBLISH answers there. */
export interface ReplyPublisher<R> {
  set(key: string, value: string, px: 'PX', ms: number): unknown;
  publish(channel: string, message: string): R;
}

/**
 * PUBLISHes `body` on `channel`; past REPLY_BY_REFERENCE_CHARS, stores it first and publishes its key. One connection
 * runs the two in order, so the key exists before its reference reaches the caller.
 */
export function publishReply<R>(redis: ReplyPublisher<R>, channel: string, body: string): R {
  if (body.length <= REPLY_BY_REFERENCE_CHARS) return redis.publish(channel, body);
  const key = `${channel}:${randomUUID()}`;
  const stored = redis.set(key, body, 'PX', REPLY_REFERENCE_TTL_MS);
  // On a connection (not in a MULTI) it is a promise of its own: its failure is the PUBLISH's too, reported there.
  if (stored instanceof Promise) stored.catch(() => undefined);
  return redis.publish(channel, encodeReplyReference(key));
}

/** One PUBLISH body for replies (already JSON) to the same caller: the reply itself, or an array of them. */
export function encodeReplies(bodies: string[]): string {
  return bodies.length === 1 ? (bodies[0] as string) : `[${bodies.join(',')}]`;
}

/** The replies of one PUBLISH body; throws when it is not JSON. */
export function decodeReplies(body: string): ReplyBody[] {
  const parsed = JSON.parse(body) as ReplyBody | ReplyBody[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** Errors do not survive JSON.stringify (it yields `{}`), so keep their name and message. */
export function toTransportableError(err: unknown): unknown {
  if (err instanceof Error) {
    return { ...err, name: err.name, message: err.message };
  }
  return err ?? 'Unknown error';
}
