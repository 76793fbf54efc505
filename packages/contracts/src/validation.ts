import { z } from 'zod';
import { type FieldError, AppError, validationFailed } from './errors.js';

/** `['dag', 'nodes', 2, 'config']` -> `dag.nodes[2].config`. */
export function formatPath(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function issueCode(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'required' : 'invalid_type';
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array' ? 'too_long' : 'out_of_range';
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array' ? 'too_short' : 'out_of_range';
    case 'unrecognized_keys':
      return 'unknown_field';
    case 'invalid_value':
      return 'invalid_value';
    case 'invalid_format':
      return 'invalid_format';
    case 'custom':
      return typeof issue.params?.['code'] === 'string' ? issue.params['code'] : 'invalid_value';
    default:
      return 'invalid_value';
  }
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_type') return `expected ${issue.expected}`;
  return issue.message;
}

/** Every zod issue as a field error; unknown keys become one `unknown_field` error each. */
export function fieldErrorsOf(error: z.ZodError, root = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({
          path: formatPath([...issue.path, key], root),
          code: 'unknown_field',
          message: 'is not a known field',
        });
      }
      continue;
    }
    out.push({ path: formatPath(issue.path, root), code: issueCode(issue), message: issueMessage(issue) });
  }
  return out;
}

/** Parses `input` with `schema`, or throws a 422 AppError listing every field at fault. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, root = ''): z.infer<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw validationFailed(fieldErrorsOf(result.error, root));
}

/** Like parseOrThrow, for query strings: the problem is a 400 invalid_parameter. */
export function parseQueryOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const errors = fieldErrorsOf(result.error);
  const first = errors[0];
  const detail = first ? `query parameter ${first.path}: ${first.message}` : 'invalid query parameters';
  throw new AppError('invalid_parameter', detail, errors);
}
