/**
 * Bounds what a run reports to the contract's limits at its source (a node's error, output): the scheduler's schema
 * refuses a longer one, and a refused report is lost. A cut text says so, so it is never taken for the whole.
 */
import { RUN_ERROR_MESSAGE_MAX, type RunError } from '@conduit/contracts';

/** Characters of a string value in a node's output (a decision's reason, a skip's reason). */
export const OUTPUT_TEXT_MAX = RUN_ERROR_MESSAGE_MAX;
/** runErrorSchema's code.max. */
const ERROR_CODE_MAX = 64;

/**
 * `text` in at most `max` characters, with a marker of how much was cut. NUL and a surrogate half (one a cut would
 * split) become U+FFFD: PostgreSQL's jsonb, where the scheduler keeps reports, refuses both.
 */
export function reportedText(text: string, max: number): string {
  let cut = text;
  if (text.length > max) {
    // The marker's length depends on the count it shows; the count's digits are at most those of text.length.
    const marker = (n: number): string => ` … [${n} characters cut]`;
    const keep = Math.max(0, max - marker(text.length).length);
    cut = `${text.slice(0, keep)}${marker(text.length - keep)}`;
  }
  // eslint-disable-next-line no-control-regex -- NUL is exactly what must be replaced (jsonb refuses it)
  return cut.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** A run or node error within runErrorSchema's limits. */
export function reportedError(message: string, extra: { node_id?: string; code?: string } = {}): RunError {
  const error: RunError = { message: reportedText(message, RUN_ERROR_MESSAGE_MAX) };
  if (extra.node_id !== undefined) error.node_id = extra.node_id;
  if (extra.code !== undefined) error.code = reportedText(extra.code, ERROR_CODE_MAX);
  return error;
}

/** A node's output with every string in it (at any depth) cut to OUTPUT_TEXT_MAX. */
export function reportedOutput(output: Record<string, unknown>): Record<string, unknown> {
  return boundedValue(output) as Record<string, unknown>;
}

function boundedValue(value: unknown): unknown {
  if (typeof value === 'string') return reportedText(value, OUTPUT_TEXT_MAX);
  if (Array.isArray(value)) return value.map(boundedValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, boundedValue(v)]));
  }
  return value;
}
