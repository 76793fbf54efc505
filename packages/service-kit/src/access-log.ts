import { type DestinationStream, pino } from 'pino';
import { isoTimeOfThisMillisecond, noteLine, stdoutDestination } from './logger.js';

/** The fields of one access line: named, flat, never a header or a body (they carry credentials and secrets). */
export type AccessFields = Record<string, string | number | undefined>;

export interface AccessLogOptions {
  /** Added to every line as `service`. */
  service: string;
  /** pino level name. Default: `info`. */
  level?: string;
  /** Where JSON lines go. Default: the process's shared stdout destination, as createLogger's. */
  destination?: DestinationStream;
}

export interface AccessLog {
  /** One line at `info` (a request answered below 500). */
  info(fields: AccessFields, msg: string): void;
  /** One line at `error` (a request answered 500 or above). */
  error(fields: AccessFields, msg: string): void;
}

/**
 * The lines a `createLogger({ redact: false })` logger writes for `logger.info(fields, msg)`, byte for byte (its level
 * label, timestamp, `service`, the fields in order, `msg`), built as one string: pino's generic serializer (its
 * formatters, serializers and stringifiers, none of which an access line uses) was most of a gateway line's cost.
 * Strings go through JSON.stringify, which also escapes lone surrogates where pino would write them raw.
 */
export function createAccessLog(opts: AccessLogOptions): AccessLog {
  const threshold = pino.levels.values[opts.level ?? 'info'] ?? (opts.level === 'silent' ? Infinity : undefined);
  if (threshold === undefined) throw new Error(`unknown log level: ${String(opts.level)}`);
  const destination = opts.destination ?? stdoutDestination();
  const bindings = `,"service":${JSON.stringify(opts.service)}`;
  const writer = (label: 'info' | 'error') => {
    if ((pino.levels.values[label] as number) < threshold) return () => undefined;
    const head = `{"level":"${label}"`;
    return (fields: AccessFields, msg: string): void => {
      let line = head + isoTimeOfThisMillisecond() + bindings;
      for (const key in fields) {
        const value = fields[key];
        if (value === undefined) continue;
        line += `,${jsonString(key)}:${typeof value === 'string' ? jsonString(value) : numberText(value)}`;
      }
      destination.write(noteLine(`${line},"msg":${jsonString(msg)}}\n`));
    };
  };
  return { info: writer('info'), error: writer('error') };
}

/** Characters JSON must escape, and surrogates (JSON.stringify escapes a lone one). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON must escape
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text)`, without its cost for the usual id, path or key, which needs no escaping. */
function jsonString(text: string): string {
  return NEEDS_ESCAPING.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** As pino writes a number: NaN and the infinities are null. */
function numberText(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}
