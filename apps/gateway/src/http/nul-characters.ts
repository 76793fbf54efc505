import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type FieldError, AppError, formatPath, validationFailed } from '@conduit/contracts';

const NUL = '\u0000';

/**
 * Paths of the strings and keys of a parsed body that hold a NUL character, iteratively (bodies can be deep).
 * PostgreSQL cannot store U+0000 in text or jsonb, so such a body must be a 422, not a failed insert (500).
 */
export function nulCharacterErrors(value: unknown, limit = 20): FieldError[] {
  // Nearly every request has none: finding that out allocates nothing, unlike collecting paths.
  if (!containsNul(value)) return [];
  const errors: FieldError[] = [];
  const stack: [unknown, PropertyKey[]][] = [[value, []]];
  while (stack.length > 0 && errors.length < limit) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string' && v.includes(NUL)) {
      errors.push({
        path: formatPath(path),
        code: 'invalid_characters',
        message: 'must not contain NUL (U+0000) characters',
      });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, [...path, i]]));
    } else if (v !== null && typeof v === 'object') {
      for (const [key, item] of Object.entries(v)) {
        if (key.includes(NUL)) {
          errors.push({
            path: formatPath(path),
            code: 'invalid_characters',
            message: 'a key must not contain NUL (U+0000) characters',
          });
        }
        stack.push([item, [...path, key]]);
      }
    }
  }
  return errors;
}

/** Whether any string or key in `value` holds a NUL (a superset of what nulCharacterErrors walks: inherited keys too). */
function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes(NUL)) return true;
    } else if (Array.isArray(v)) {
      for (const item of v as unknown[]) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const key in v) {
        if (key.includes(NUL)) return true;
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

/** The NUL characters of one request, or null: a 400 for its path, query or headers, else a 422 for its body. */
export function nulCharacterProblem(request: FastifyRequest): AppError | null {
  for (const [kind, inputOf] of URL_AND_HEADER_INPUTS) {
    const errors = nulCharacterErrors(inputOf(request) ?? {});
    const first = errors[0];
    if (first) return new AppError('invalid_parameter', `${kind} ${first.path || '(name)'}: ${first.message}`, errors);
  }
  const bodyErrors = nulCharacterErrors(request.body);
  return bodyErrors.length > 0 ? validationFailed(bodyErrors) : null;
}

/**
 * One check for every input of every route, after routing and body parsing and before any handler, guard or
 * backend sees it: a NUL decoded from `%00` in a path or query, or in a JSON string, would otherwise reach
 * PostgreSQL, which refuses U+0000 in text (a 500). A raw NUL byte in the request line or a header never gets
 * this far: Node's parser refuses it (see client-errors.ts).
 */
export function registerNulCharacterCheck(app: FastifyInstance): void {
  // eslint-disable-next-line @typescript-eslint/require-await -- Fastify runs a hook that returns a promise as async; a plain function would have to call `done`.
  app.addHook('preValidation', async (request) => {
    const problem = nulCharacterProblem(request);
    if (problem) throw problem;
  });
}
