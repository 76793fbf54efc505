import { pino, type DestinationStream, type Logger } from 'pino';
import { LineBatch } from './line-batch.js';

/** Keys whose values are replaced by `[redacted]` (to three levels deep; see redactPaths). */
export const SENSITIVE_KEYS = [
  'password',
  'secret',
  'client_secret',
  'api_key',
  'apiKey',
  'token',
  'access_token',
  'refresh_token',
  'authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
] as const;

/** Keys also redacted one level deeper (e.g. `body.connector.config.password`). */
const DEEP_SENSITIVE_KEYS = ['password', 'secret', 'token'] as const;

export const REDACTED = '[redacted]';

/**
 * pino paths match a fixed depth, so each key is listed at the depths logs commonly reach:
 * `password`, `*.password`, `*.*.password` (covers `req.headers.authorization`, `*.config.password`).
 * Every wildcard path costs time on every line (about 25 us for a request line with these), which is
 * why the list stops there rather than going deeper.
 */
function redactPaths(): string[] {
  const at = (depth: number, key: string): string => {
    const prefix = '*.'.repeat(depth);
    // Keys like x-api-key need bracket notation: "*.*" + '["x-api-key"]'.
    return /^[A-Za-z_$][\w$]*$/.test(key) ? `${prefix}${key}` : `${prefix.replace(/\.$/, '')}["${key}"]`;
  };
  return [
    ...SENSITIVE_KEYS.flatMap((key) => [at(0, key), at(1, key), at(2, key)]),
    ...DEEP_SENSITIVE_KEYS.map((key) => at(3, key)),
  ];
}

export interface CreateLoggerOptions {
  /** Added to every line as `service`. */
  service: string;
  /** pino level name. Default: `info`. */
  level?: string;
  /** Where JSON lines go. Default: stdout, written asynchronously (see {@link stdoutDestination}). */
  destination?: DestinationStream;
  /**
   * Default true. False only for a logger whose lines are built from named, non-secret fields (the gateway's
   * access log): the redaction paths cost about 25 us a line, the largest share of a request's logging.
   */
  redact?: boolean;
}

/** Lines wait until this many bytes are ready, or {@link FLUSH_EVERY_MS}, whichever comes first. */
const BUFFER_BYTES = 4096;
const FLUSH_EVERY_MS = 100;

let stdout: DestinationStream | undefined;
/** Whether a line was logged since the last timed flush: the timer writes only then. */
let unflushed = false;

/**
 * The process's stdout as one shared pino destination that writes lines in batches of about 4 KiB, directly from the
 * event loop: one write() for a dozen lines of a busy gateway, rather than a write (and, asynchronously, a hand-off
 * to libuv's thread pool and back) per line or per turn. A quiet process has its lines written within 100 ms by a
 * timer; `fatal` lines and the process's exit write everything at once (LineBatch.flushSync).
 */
export function stdoutDestination(): DestinationStream {
  if (!stdout) {
    // sonic-boom writes each batch at once (no minLength): LineBatch does the batching, more cheaply.
    const destination = new LineBatch(pino.destination({ dest: 1, sync: true }), BUFFER_BYTES);
    // pino's exit hook flushes only sonic-boom: the lines gathered here are written by this one.
    process.on('exit', () => destination.flushSync());
    setInterval(() => {
      if (!unflushed) return;
      unflushed = false;
      destination.flush();
    }, FLUSH_EVERY_MS).unref();
    stdout = destination;
  }
  return stdout;
}

/** pino's streamWrite hook: notes that the shared stdout destination holds a line the timer must write. */
export function noteLine(line: string): string {
  unflushed = true;
  return line;
}

let stampedAt = -1;
let stamp = '';

/**
 * pino's `isoTime` (`,"time":"<ISO 8601>"`), built once per millisecond: a Date's toISOString costs about a
 * microsecond, and a busy gateway writes several access lines in the same millisecond.
 */
export function isoTimeOfThisMillisecond(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = `,"time":"${new Date(now).toISOString()}"`;
  }
  return stamp;
}

/** JSON lines with RFC 3339 UTC timestamps, `service` on every line and secrets replaced by `[redacted]`. */
export function createLogger(opts: CreateLoggerOptions): Logger {
  const options = {
    level: opts.level ?? 'info',
    base: { service: opts.service },
    timestamp: isoTimeOfThisMillisecond,
    formatters: { level: (label: string) => ({ level: label }) },
    hooks: { streamWrite: noteLine },
    ...(opts.redact !== false && { redact: { paths: redactPaths(), censor: REDACTED } }),
  };
  return pino(options, opts.destination ?? stdoutDestination());
}
