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
 * The only body parser: JSON, at most 1 MiB, nested at most 64 deep. Any other content type is a 415
 * (Fastify answers it for types without a parser), a body that is not JSON a 400. NUL characters and lone surrogates
 * in its strings are refused with every other input's (invalid-characters.ts).
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: LIMITS.bodyBytes },
    (_req, body, done) => {
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
      done(null, parsed);
    },
  );
}
