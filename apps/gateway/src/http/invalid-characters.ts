import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type FieldError, AppError, formatPath, validationFailed } from '@conduit/contracts';
import { bodyMayHoldEscapes } from './json-body.js';

const NUL = '\u0000';
/** Any surrogate: only a string holding one needs the exact check (a surrogate pair is fine). */
const SURROGATE = /[\ud800-\udfff]/;

/** Where the first UTF-16 surrogate without its other half is in `text`, or -1. */
export function loneSurrogateAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit <= 0xdbff) {
      // NaN past the end: a high surrogate that ends the string is alone.
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    return i;
  }
  return -1;
}

/**
 * Why PostgreSQL cannot take `text`, or undefined: it refuses U+0000 in text and jsonb, and a lone surrogate in jsonb
 * (a text column silently stores U+FFFD instead). Allocates nothing for a string without either.
 */
function faultOf(text: string): string | undefined {
  if (text.includes(NUL)) return 'must not contain NUL (U+0000) characters';
  if (!SURROGATE.test(text)) return undefined;
  const at = loneSurrogateAt(text);
  if (at < 0) return undefined;
  return `contains an unpaired UTF-16 surrogate (\\u${text.charCodeAt(at).toString(16)}): not valid Unicode text`;
}

/**
 * Paths of the strings and keys of a parsed body that PostgreSQL cannot store (a NUL, a lone surrogate), iteratively
 * (bodies can be deep): such a body must be a 422, not a failed insert (500).
 */
export function invalidCharacterErrors(value: unknown, limit = 20): FieldError[] {
  // Nearly every request has none: finding that out allocates nothing, unlike collecting paths.
  if (!containsFault(value)) return [];
  const errors: FieldError[] = [];
  const stack: [unknown, PropertyKey[]][] = [[value, []]];
  while (stack.length > 0 && errors.length < limit) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const fault = faultOf(v);
      if (fault) errors.push({ path: formatPath(path), code: 'invalid_characters', message: fault });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, [...path, i]]));
    } else if (v !== null && typeof v === 'object') {
      for (const [key, item] of Object.entries(v)) {
        const fault = faultOf(key);
        if (fault) errors.push({ path: formatPath(path), code: 'invalid_characters', message: `a key ${fault}` });
        stack.push([item, [...path, key]]);
      }
    }
  }
  return errors;
}

/** Whether any string or key in `value` has a fault (more than invalidCharacterErrors walks: inherited keys too). */
function containsFault(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (faultOf(v)) return true;
    } else if (Array.isArray(v)) {
      for (const item of v as unknown[]) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const key in v) {
        if (faultOf(key)) return true;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** The request's inputs besides the body, named as a problem names them. */
const URL_AND_HEADER_INPUTS = [
  ['path parameter', (r: FastifyRequest) => r.params],
  ['query parameter', (r: FastifyRequest) => r.query],
  ['header', (r: FastifyRequest) => r.headers],
] as const;

/**
 * The invalid characters of one request, or null: a 400 for its path, query or headers, else a 422 for its body.
 * `body: false` leaves the body out (its text held no escape, the only way either fault gets into it).
 */
export function invalidCharacterProblem(request: FastifyRequest, { body = true } = {}): AppError | null {
  for (const [kind, inputOf] of URL_AND_HEADER_INPUTS) {
    const errors = invalidCharacterErrors(inputOf(request) ?? {});
    const first = errors[0];
    if (first) return new AppError('invalid_parameter', `${kind} ${first.path || '(name)'}: ${first.message}`, errors);
  }
  if (!body) return null;
  const bodyErrors = invalidCharacterErrors(request.body);
  return bodyErrors.length > 0 ? validationFailed(bodyErrors) : null;
}

/**
 * One check for every input of every route, after routing and body parsing and before any handler, guard or
 * backend sees it: a NUL decoded from `%00` in a path or query, or a NUL or lone surrogate (`\ud800`) in a JSON
 * string, would otherwise reach PostgreSQL and fail there (a 500). A raw NUL byte in the request line or a header
 * never gets this far: Node's parser refuses it (see client-errors.ts).
 */
export function registerInvalidCharacterCheck(app: FastifyInstance): void {
  // eslint-disable-next-line @typescript-eslint/require-await -- Fastify runs a hook that returns a promise as async; a plain function would have to call `done`.
  app.addHook('preValidation', async (request) => {
    const problem = invalidCharacterProblem(request, { body: bodyMayHoldEscapes(request) });
    if (problem) throw problem;
  });
}
