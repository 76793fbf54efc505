import type { FastifyReply, FastifyRequest } from 'fastify';
import { type RunLogTail, AppError, problemDocument } from '@conduit/contracts';
import type { BackendClient } from '../forwarding/backend.client.js';

/**
 * How often a live stream asks monitoring for new lines: every POLL_MS while lines come, twice as long after each
 * empty answer up to POLL_MAX_MS (a quiet run's streams cost monitoring a quarter as much; its next line is at most
 * that late).
 */
export const POLL_MS = 250;
export const POLL_MAX_MS = 1000;
/** Failed polls in a row (monitoring away, timeouts) after which a stream gives up; the client reconnects. */
const MAX_FAILED_POLLS = 8;
/**
 * How long a stream waits for its client to read what the socket already holds before it gives up (the client
 * resumes with Last-Event-ID). No poll happens meanwhile.
 */
export const MAX_STALL_MS = 60_000;

export interface RunLogStreamTarget {
  jobId: string;
  runId: string;
  /** The last seq the client has (Last-Event-ID), 0 for the beginning. */
  afterSeq: number;
  level?: RunLogTail['data'][number]['level'] | undefined;
  nodeId?: string | undefined;
}

/** The stream's credential, checked again while it lasts: a revoked key or an expired token ends it. */
export interface StreamCredentialCheck {
  everyMs: number;
  /** Resolves while the credential still holds; throws (an AppError) once it does not. */
  check(): Promise<void>;
}

/** The SSE event that ends a stream whose credential no longer holds: the problem the next request would get. */
function errorEvent(request: FastifyRequest, err: unknown): string {
  const error =
    err instanceof AppError ? err : new AppError('service_unavailable', 'the credential could not be checked again');
  const doc = problemDocument(error.toDomainError(), request.url.split('?')[0] ?? '/', String(request.id));
  return `event: error\ndata: ${JSON.stringify(doc)}\n\n`;
}

/**
 * Streams a run's log lines as server-sent events (`id` = seq, data = the line's JSON) until the run has ended and no
 * line is left, then sends `event: end`. Polls `monitoring.logs.tail`; a client that reconnects with Last-Event-ID
 * resumes after the last line it got. The reply is hijacked: Nest and Fastify no longer touch it. Every
 * `credential.everyMs` the caller's credential is checked again; once it fails the stream sends `event: error`
 * with the problem and ends (any failure, even of the check itself, ends it: a reconnect authenticates afresh).
 * While the client has not read what the socket holds, no poll is made; after MAX_STALL_MS of that the stream is cut.
 */
export async function streamRunLogs(
  backend: BackendClient,
  request: FastifyRequest,
  reply: FastifyReply,
  first: RunLogTail,
  target: RunLogStreamTarget,
  credential: StreamCredentialCheck,
): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) headers[name] = String(value);
  raw.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': String(request.id),
  });
  // Node holds the head back until the first write, and a run may have no line for a while: the client learns at
  // once that the stream is open.
  raw.flushHeaders();
  // A client gone during the first poll closed the reply before this listener: seen here, or it would hold its slot
  // and poll until its run ends.
  let closed = raw.destroyed || request.raw.destroyed || request.raw.socket.destroyed;
  let wake: (() => void) | undefined;
  raw.on('close', () => {
    closed = true;
    wake?.();
  });
  // A wait that a client's close ends at once (its slot is given back then, not a poll later), or, with `until`, the
  // socket's 'drain': a client that reads slowly (or never) is not polled for more than it takes, and the gateway
  // holds at most one answer of its lines.
  const pause = (ms: number, until?: 'drain') =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (until) raw.off(until, done);
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      if (until) raw.once(until, done);
      wake = done;
    });

  let afterSeq = target.afterSeq;
  /** An answer not written yet; null after a failed poll too. */
  let answer: RunLogTail | null = first;
  let failures = 0;
  let idleMs = POLL_MS;
  let checkAt = Date.now() + credential.everyMs;
  let stalledSince: number | undefined;
  while (!closed) {
    if (Date.now() >= checkAt) {
      try {
        await credential.check();
      } catch (err) {
        if (!closed) raw.write(errorEvent(request, err));
        break;
      }
      if (closed) break;
      checkAt = Date.now() + credential.everyMs;
    }
    if (raw.writableNeedDrain) {
      stalledSince ??= Date.now();
      if (Date.now() - stalledSince >= MAX_STALL_MS) {
        // Its place goes to a client that reads; this one resumes with Last-Event-ID.
        raw.destroy();
        break;
      }
      await pause(Math.max(0, Math.min(checkAt, stalledSince + MAX_STALL_MS) - Date.now()) + 1, 'drain');
      continue;
    }
    stalledSince = undefined;
    if (answer) {
      const before = afterSeq;
      let chunk = '';
      for (const line of answer.data) {
        chunk += `id: ${line.seq}\ndata: ${JSON.stringify(line)}\n\n`;
        afterSeq = line.seq;
      }
      // Lines the filter left out are passed over too: the next poll starts after them. (A monitoring replica older
      // than scanned_seq answers without it; its replies are not parsed in production.)
      if (answer.scanned_seq > afterSeq) afterSeq = answer.scanned_seq;
      if (chunk) raw.write(chunk);
      // Monitoring says no line is left after these.
      if (answer.run_finished) {
        raw.write('event: end\ndata: {}\n\n');
        break;
      }
      answer = null;
      // An answer that moved on may have more behind it: ask again at once (once the client has taken this one).
      if (afterSeq > before) {
        idleMs = POLL_MS;
        continue;
      }
      await pause(idleMs);
      idleMs = Math.min(idleMs * 2, POLL_MAX_MS);
    } else if (failures > 0) {
      await pause(POLL_MS);
    }
    if (closed) break;
    try {
      answer = (
        await backend.call(
          'monitoring.logs.tail',
          {
            job_id: target.jobId,
            run_id: target.runId,
            after_seq: afterSeq,
            level: target.level,
            node_id: target.nodeId,
          },
          request,
        )
      ).data;
      failures = 0;
    } catch {
      answer = null;
      if (++failures >= MAX_FAILED_POLLS) break;
    }
  }
  if (!raw.writableEnded && !raw.destroyed) raw.end();
}
