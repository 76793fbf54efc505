import { type FieldError, formatPath } from '@conduit/contracts';

/**
 * Paths of the strings and keys of a parsed body that hold a NUL character, iteratively (bodies can be deep).
 * PostgreSQL cannot store U+0000 in text or jsonb, so such a body must be a 422, not a failed insert (500).
 */
export function nulCharacterErrors(value: unknown, limit = 20): FieldError[] {
  const errors: FieldError[] = [];
  const stack: [unknown, PropertyKey[]][] = [[value, []]];
  while (stack.length > 0 && errors.length < limit) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string' && v.includes('\u0000')) {
      errors.push({ path: formatPath(path), code: 'invalid_characters', message: 'must not contain NUL (U+0000) characters' });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, [...path, i]]));
    } else if (v !== null && typeof v === 'object') {
      for (const [key, item] of Object.entries(v)) {
        if (key.includes('\u0000')) {
          errors.push({ path: formatPath(path), code: 'invalid_characters', message: 'a key must not contain NUL (U+0000) characters' });
        }
        stack.push([item, [...path, key]]);
      }
    }
  }
  return errors;
}
