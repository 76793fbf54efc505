import { z } from 'zod';
import { type IdKind, isId } from './ids.js';

export const PAGE_LIMIT = { min: 1, max: 200, default: 50 } as const;

const LIMIT_MESSAGE = `must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`;
/** A limit as a query string gives it: plain decimal digits, no sign, space, leading zero, exponent, point or base. */
const DECIMAL_LIMIT = /^[1-9][0-9]{0,2}$/;

/**
 * A query string's `limit` as a number (a number is one already parsed: the gateway forwards it so). Anything else is
 * refused here rather than coerced: `Number()` read `0x10` as 16, `1e1` as 10, ` 1`, `+1`, `010` and `200.0` as numbers.
 */
function pageLimitOf(input: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (input === undefined) return input;
  if (typeof input === 'string' && DECIMAL_LIMIT.test(input)) return Number(input);
  if (typeof input === 'number' && Number.isInteger(input)) return input;
  ctx.addIssue({ code: 'custom', message: LIMIT_MESSAGE, params: { code: 'invalid_value' }, input });
  return input;
}

/** `limit` and `cursor` of every list operation (query strings arrive as text). */
export const pageQueryShape = {
  limit: z.preprocess(
    pageLimitOf,
    z
      .number()
      .int({ error: LIMIT_MESSAGE })
      .min(PAGE_LIMIT.min, { error: LIMIT_MESSAGE })
      .max(PAGE_LIMIT.max, { error: LIMIT_MESSAGE })
      .default(PAGE_LIMIT.default),
  ),
  cursor: z.string().min(1).max(512).optional(),
};

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** What a cursor points after: the sort key of the last item of the previous page, in the list it pages. */
export interface CursorPosition {
  /**
   * The last item's key (cursorKeys): its id, as ids are time-ordered, so keyset paging on id is stable under concurrent
   * inserts; a run's log lines page on their seq.
   */
  after: string;
  /** The list it pages (cursorLists): a cursor of another list, or of another job's runs, is not this list's. */
  list: string;
}

/** The lists a cursor can page, one name each (a job's runs, a run's log lines, a webhook's deliveries each their own). */
export const cursorLists = {
  projects: 'projects',
  pipelines: 'pipelines',
  connectors: 'connectors',
  jobs: 'jobs',
  alerts: 'alerts',
  webhooks: 'webhooks',
  apiKeys: 'api-keys',
  runs: (jobId: string) => `runs:${jobId}`,
  runLogs: (runId: string) => `logs:${runId}`,
  deliveries: (webhookId: string) => `deliveries:${webhookId}`,
} as const;

type CursorList = keyof typeof cursorLists;

const idOf =
  (kind: IdKind) =>
  (after: string): boolean =>
    isId(kind, after);

/** A log line's seq (a bigint from 1; 0 is the start of a live stream): plain decimal digits, a safe integer. */
function isLogSeq(after: string): boolean {
  return /^(0|[1-9][0-9]{0,15})$/.test(after) && Number.isSafeInteger(Number(after));
}

/**
 * What each list puts in `after`, so that decoding refuses a cursor whose key that list never issued (a hand-made
 * `{"after":"pln_…","list":"projects"}` paged projects from a pipeline id, `"xx'"` from the start). Cursors are not
 * signed: a well-formed key of another tenant's item is still accepted, and pages only the caller's own rows.
 */
export const cursorKeys: { readonly [L in CursorList]: (after: string) => boolean } = {
  projects: idOf('project'),
  pipelines: idOf('pipeline'),
  connectors: idOf('connector'),
  jobs: idOf('job'),
  alerts: idOf('alert'),
  webhooks: idOf('webhook'),
  apiKeys: idOf('apiKey'),
  runs: idOf('run'),
  runLogs: isLogSeq,
  deliveries: idOf('delivery'),
};

/** The key check of list `list` (one of cursorLists' names, or a name a cursorLists function makes). */
function keyCheckOf(list: string): ((after: string) => boolean) | undefined {
  for (const name of Object.keys(cursorLists) as CursorList[]) {
    const named = cursorLists[name];
    if (typeof named === 'string' ? list === named : list.startsWith(named(''))) return cursorKeys[name];
  }
  return undefined;
}

export function encodeCursor(position: CursorPosition): string {
  const { after, list } = position;
  return Buffer.from(JSON.stringify({ after, list }), 'utf8').toString('base64url');
}

/**
 * Decodes an opaque cursor of list `list`; undefined when it is not one we issued for that list (the caller answers 400
 * invalid_parameter): a cursor of another list would page this one from a position it never had, and one whose `after`
 * is not the key that list pages on (cursorKeys) was made by hand. It must also be exactly what encodeCursor makes of
 * its position (no other field, spacing or base64 form).
 */
export function decodeCursor(cursor: string, list: string): CursorPosition | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const { after, list: from } = value as { after?: unknown; list?: unknown };
      const isKey = keyCheckOf(list);
      if (typeof after === 'string' && from === list && isKey?.(after) === true) {
        const position = { after, list };
        if (encodeCursor(position) === cursor) return position;
      }
    }
  } catch {
    // fall through: not a cursor we issued
  }
  return undefined;
}

/** Builds a page from `limit + 1` rows fetched in order: the extra row only tells that another page exists. */
export function pageOf<T>(rows: T[], limit: number, keyOf: (row: T) => string, list: string): Page<T> {
  if (rows.length <= limit) return { data: rows, next_cursor: null };
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data, next_cursor: last === undefined ? null : encodeCursor({ after: keyOf(last), list }) };
}
