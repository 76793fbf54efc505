import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, LIMITS, formatPath } from '@conduit/contracts';
import { jsonErrorPosition } from './json-error-position.js';

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, read from the text alone (brackets outside strings):
 * before parsing it, so a body of a million `[` costs a linear scan, not a parse and a walk. For valid JSON this is
 * the parsed value's depth.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** What a parsed body holds that no schema may take: found by one walk, its paths built only for what is found. */
export interface ValueFaults {
  /**
   * The path of the first key `__proto__` (JSON.parse keeps it as an own key). The schemas' records drop such a key,
   * so a value under it would vanish without a word (run parameters came back `{}`): it is refused instead.
   */
  protoKey?: string;
  /** The paths, in document order, of numbers too large for a double (JSON.parse makes them Infinity). */
  infinite: string[];
}

/**
 * Walks a parsed body once for what {@link ValueFaults} names, and only when its text may hold one: a `__proto__` key
 * spelled out or through an escape, a number with an exponent or a run of over 300 digits (matched from its first
 * digit only, so the scan stays linear). The value nests at most LIMITS.jsonDepth deep ({@link nestsDeeperThan} came
 * first), so the walk may recurse.
 */
export function valueFaults(text: string, value: unknown): ValueFaults {
  const faults: ValueFaults = { infinite: [] };
  const keys = text.includes('__proto__') || text.includes('\\u');
  const numbers = /\d[eE]|(?<!\d)\d{301}/.test(text);
  if (!keys && !numbers) return faults;
  const path: PropertyKey[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'number') {
      if (numbers && !Number.isFinite(v)) faults.infinite.push(formatPath(path));
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        walk(v[i]);
        path.pop();
      }
      return;
    }
    for (const key of Object.keys(v)) {
      path.push(key);
      if (keys && key === '__proto__') faults.protoKey ??= formatPath(path);
      walk((v as Record<string, unknown>)[key]);
      path.pop();
    }
  };
  walk(value);
  return faults;
}

/** Requests whose body text holds a `\u` escape: the only way a NUL or a lone surrogate gets into valid UTF-8 JSON. */
const escapedBodies = new WeakSet<FastifyRequest>();

/**
 * Whether a request's body may hold a NUL or a lone surrogate (invalid-characters.ts): JSON.parse refuses raw control
 * characters in strings, and UTF-8 (checked first) cannot encode a lone surrogate, so only an escape brings either.
 */
export function bodyMayHoldEscapes(request: FastifyRequest): boolean {
  return escapedBodies.has(request);
}

/**
 * The body's content coding other than `identity`, if the request names one (RFC 9110 8.4): the gateway takes bodies
 * uncompressed only, so a compressed one is a 415 naming its coding rather than a 400 for bytes that are not JSON (or
 * a body taken as JSON while its header says otherwise).
 */
function contentCoding(header: string | string[] | undefined): string | undefined {
  const codings = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  return codings.length === 0 ? undefined : codings.join(', ');
}

const encodingRefusal = (encoding: string): string =>
  `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not accepted: send the body uncompressed, as application/json`;

/**
 * The charset the Content-Type names, if any but UTF-8 (`utf8` is a label of it too): JSON is UTF-8 (RFC 8259 8.1)
 * and the body is read as such, so one declared in another (utf-16, latin1) is a 415 naming it, not read as UTF-8.
 */
function foreignCharset(header: string | undefined): string | undefined {
  for (const param of (header ?? '').split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return charset;
  }
  return undefined;
}

/**
 * The only body parser: JSON, at most 1 MiB, nested at most 64 deep. Any other content type is a 415
 * (Fastify answers it for types without a parser), as is a content coding ({@link contentCoding}) or a charset but
 * UTF-8 ({@link foreignCharset}), a body that is not JSON (or not UTF-8) a 400, a number too large for a double a 422.
 * NUL characters and lone surrogates in its strings are refused with every other input's (invalid-characters.ts).
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: LIMITS.bodyBytes },
    (req, body, done) => {
      // A body sent to no route (a 404 or 405 answers it) is never worth parsing, nor admitted before (admit-before-body.ts).
      if (req.routeOptions.url === undefined) return done(null, undefined);
      const encoding = contentCoding(req.headers['content-encoding']);
      if (encoding !== undefined)
        return done(new AppError('unsupported_media_type', encodingRefusal(encoding)), undefined);
      const charset = foreignCharset(req.headers['content-type']);
      if (charset !== undefined) {
        const refusal = `charset ${JSON.stringify(charset.slice(0, 40))} is refused: only UTF-8 JSON is accepted`;
        return done(new AppError('unsupported_media_type', refusal), undefined);
      }
      // JSON text is Unicode: bytes that are not UTF-8 would be stored as U+FFFD, changed without a word.
      if (typeof body !== 'string' && !isUtf8(body))
        return done(new AppError('malformed_json', 'the body is not valid JSON: it is not UTF-8 text'), undefined);
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      if (nestsDeeperThan(text, LIMITS.jsonDepth)) {
        return done(
          new AppError('malformed_json', `the body is nested deeper than ${LIMITS.jsonDepth} levels`),
          undefined,
        );
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Only the position, found anew: the parser's message quotes the body (which may hold a secret) and gives a
        // position for some faults only.
        const position = jsonErrorPosition(text);
        const where = position === undefined ? '' : ` (at character ${position})`;
        return done(new AppError('malformed_json', `the body is not valid JSON${where}`), undefined);
      }
      const faults = valueFaults(text, parsed);
      if (faults.protoKey !== undefined) {
        return done(
          new AppError('validation_failed', '1 field is invalid', [
            { path: faults.protoKey, code: 'invalid_key', message: 'a key named __proto__ is never taken' },
          ]),
          undefined,
        );
      }
      if (faults.infinite.length > 0) {
        const errors = faults.infinite.map((path) => ({
          path,
          code: 'number_out_of_range',
          message: 'the number is too large to be kept (at most about 1.8e308)',
        }));
        return done(
          new AppError(
            'validation_failed',
            `${errors.length} field${errors.length === 1 ? ' is' : 's are'} invalid`,
            errors,
          ),
          undefined,
        );
      }
      if (text.includes('\\u')) escapedBodies.add(req);
      done(null, parsed);
    },
  );
}
