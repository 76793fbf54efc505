import { pino, type DestinationStream, type Logger } from 'pino';

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

let stdout: DestinationStream | undefined;

/**
 * The process's stdout as one shared pino destination, written asynchronously: a line does not wait for its
 * write, and lines logged while a write is under way go out together in the next one (a busy gateway would
 * otherwise make one blocking syscall per request). pino flushes it synchronously when the process exits.
 */
export function stdoutDestination(): DestinationStream {
  stdout ??= pino.destination({ dest: 1, sync: false });
  return stdout;
}

/** JSON lines with RFC 3339 UTC timestamps, `service` on every line and secrets replaced by `[redacted]`. */
export function createLogger(opts: CreateLoggerOptions): Logger {
  const options = {
    level: opts.level ?? 'info',
    base: { service: opts.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    ...(opts.redact !== false && { redact: { paths: redactPaths(), censor: REDACTED } }),
  };
  return pino(options, opts.destination ?? stdoutDestination());
}
