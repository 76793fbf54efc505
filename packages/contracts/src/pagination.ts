import { z } from 'zod';

export const PAGE_LIMIT = { min: 1, max: 200, default: 50 } as const;

/** `limit` and `cursor` of every list operation (query strings arrive as text). */
export const pageQueryShape = {
  limit: z.coerce.number().int().min(PAGE_LIMIT.min).max(PAGE_LIMIT.max).default(PAGE_LIMIT.default),
  cursor: z.string().min(1).max(512).optional(),
};

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** What a cursor points after: the sort key of the last item of the previous page, in the list it pages. */
export interface CursorPosition {
  /** The last item's id: ids are time-ordered, so keyset paging on id is stable under concurrent inserts. */
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

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/**
 * Decodes an opaque cursor of list `list`; undefined when it is not one we issued for that list (the caller answers 400
 * invalid_parameter): a cursor of another list would page this one from a position it never had.
 */
export function decodeCursor(cursor: string, list: string): CursorPosition | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (value && typeof value === 'object') {
      const { after, list: from } = value as { after?: unknown; list?: unknown };
      // Every key a page ends at is an id or a number: printable ASCII. Anything else (a NUL, which PostgreSQL refuses
      // in text, control characters, other scripts) was never issued.
      if (
        typeof after === 'string' &&
        from === list &&
        after.length > 0 &&
        after.length <= 64 &&
        /^[\x21-\x7e]+$/.test(after)
      )
        return { after, list };
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
