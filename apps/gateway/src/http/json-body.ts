import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { AppError, LIMITS } from '@conduit/contracts';

/** Deepest nesting of a parsed JSON value, without recursion (a 10,000-deep body must not blow the stack). */
export function jsonDepth(value: unknown, stopAt: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) max = depth;
    if (max > stopAt) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return max;
}

/**
 * The body path of the first key `__proto__` in a parsed JSON value (JSON.parse keeps it as an own key), or undefined.
 * The schemas' records drop such a key, so a value under it would vanish without a word (run parameters came back
 * `{}`): it is refused instead. Walked only when the text may hold one (spelled out or through an escape).
 */
export function protoKeyPath(text: string, value: unknown): string | undefined {
  if (!text.includes('__proto__') && !text.includes('\\u')) return undefined;
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      v.forEach((child, i) => stack.push([child, `${path}[${i}]`]));
      continue;
    }
    for (const key of Object.keys(v)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (key === '__proto__') return at;
      stack.push([(v as Record<string, unknown>)[key], at]);
    }
  }
  return undefined;
}

/**
 * The body paths, in document order, of the numbers too large for a double (`1e400`, `<300 digits>e99`: JSON.parse
 * makes them Infinity, which JSON then writes as null); empty when none. Walked only when the text holds a number that
 * may be one: one with an exponent, or a run of over 300 digits (matched from its first digit only, so the scan stays
 * linear in the text).
 */
export function infiniteNumberPaths(text: string, value: unknown): string[] {
  if (!/\d[eE]|(?<!\d)\d{301}/.test(text)) return [];
  const paths: string[] = [];
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) paths.push(path);
    if (v === null || typeof v !== 'object') continue;
    const children: [unknown, string][] = Array.isArray(v)
      ? v.map((child, i) => [child, `${path}[${i}]`])
      : Object.entries(v).map(([key, child]) => [child, path === '' ? key : `${path}.${key}`]);
    // Reversed onto the stack, so they come off it in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return paths;
}

/**
 * The only body parser: JSON, at most 1 MiB, nested at most 64 deep. Any other content type is a 415
 * (Fastify answers it for types without a parser), a body that is not JSON (or not UTF-8) a 400, a number too large
 * for a double a 422. NUL characters and lone surrogates in its strings are refused with every other input's
 * (invalid-characters.ts).
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: LIMITS.bodyBytes },
    (_req, body, done) => {
      // JSON text is Unicode: bytes that are not UTF-8 would be stored as U+FFFD, changed without a word.
      if (typeof body !== 'string' && !isUtf8(body))
        return done(new AppError('malformed_json', 'the body is not valid JSON: it is not UTF-8 text'), undefined);
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        // Only the position: the parser's message quotes the body, which may hold a secret.
        const position = /position (\d+)/.exec((err as Error).message)?.[1];
        const where = position === undefined ? '' : ` (at character ${position})`;
        return done(new AppError('malformed_json', `the body is not valid JSON${where}`), undefined);
      }
      if (jsonDepth(parsed, LIMITS.jsonDepth) > LIMITS.jsonDepth) {
        return done(
          new AppError('malformed_json', `the body is nested deeper than ${LIMITS.jsonDepth} levels`),
          undefined,
        );
      }
      const proto = protoKeyPath(text, parsed);
      if (proto !== undefined) {
        return done(
          new AppError('validation_failed', '1 field is invalid', [
            { path: proto, code: 'invalid_key', message: 'a key named __proto__ is never taken' },
          ]),
          undefined,
        );
      }
      const infinite = infiniteNumberPaths(text, parsed);
      if (infinite.length > 0) {
        const errors = infinite.map((path) => ({
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
      done(null, parsed);
    },
  );
}
