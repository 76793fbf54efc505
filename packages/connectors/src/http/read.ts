/**
 * Reads JSON records page by page: one batch per page. Paging follows page numbers (page/per_page parameters),
 * a cursor taken from each answer, or the Link header's rel="next"; it stops at an empty or short page, a missing
 * cursor or link, or max_pages. A next link must stay on the base URL's origin (the credentials go with it).
 */
import { ConnectorError } from '../connector-error.js';
import { scalarText } from '../formats/scalar-text.js';
import type { ReadRequest, Row } from '../types.js';
import { resolveUrl, type HttpConfig } from './http.config.js';
import type { HttpSession } from './http-session.js';
import { valueAt } from './json-path.js';
import { nextLink } from './link-header.js';
import { parseHttpReadOptions, type HttpReadOptions } from './read-options.js';

/** The records of one answer as rows; a non-object record becomes `{ value }`. */
export function recordsOf(document: unknown, recordsPath: string): Row[] {
  const found = valueAt(document, recordsPath);
  if (found === undefined || found === null) {
    throw new ConnectorError(`the answer has nothing at records_path "${recordsPath}"`, 'config_error');
  }
  const list = Array.isArray(found) ? found : [found];
  return list.map((record: unknown) =>
    record !== null && typeof record === 'object' && !Array.isArray(record) ? (record as Row) : { value: record },
  );
}

function firstUrl(cfg: HttpConfig, opts: HttpReadOptions): URL {
  const url = resolveUrl(cfg, opts.path);
  for (const [key, value] of Object.entries(opts.params)) url.searchParams.set(key, value);
  if (opts.pagination === 'page') {
    url.searchParams.set(opts.page_param, String(opts.start_page));
    url.searchParams.set(opts.per_page_param, String(opts.per_page));
  }
  return url;
}

function parseJson(body: string, what: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new ConnectorError(`${what} did not answer JSON`, 'config_error');
  }
}

export async function* readRecords(session: HttpSession, req: ReadRequest): AsyncGenerator<Row[]> {
  const opts = parseHttpReadOptions(req);
  const origin = new URL(session.cfg.base_url).origin;
  let url: URL | undefined = firstUrl(session.cfg, opts);
  let page = opts.start_page;
  for (let pages = 0; url && pages < opts.max_pages; pages++) {
    req.signal?.throwIfAborted();
    const res = await session.request('GET', url, undefined, req.signal);
    const document = parseJson(res.body, `GET ${session.describe(url)}`);
    const rows = recordsOf(document, opts.records_path);
    if (rows.length > 0) yield rows;
    url = nextUrl(url, document, res.headers['link'], rows.length);
  }

  function nextUrl(
    current: URL,
    document: unknown,
    link: string | string[] | undefined,
    count: number,
  ): URL | undefined {
    switch (opts.pagination) {
      case 'none':
        return undefined;
      case 'page': {
        if (count < opts.per_page) return undefined;
        page += 1;
        const next = new URL(current);
        next.searchParams.set(opts.page_param, String(page));
        return next;
      }
      case 'cursor': {
        const cursor = valueAt(document, opts.cursor_path);
        if (count === 0 || cursor === undefined || cursor === null || cursor === '' || cursor === false)
          return undefined;
        const next = new URL(current);
        next.searchParams.set(opts.cursor_param, scalarText(cursor));
        return next;
      }
      case 'link': {
        const target = nextLink(link);
        if (target === undefined) return undefined;
        const next = new URL(target, current);
        if (next.origin !== origin) {
          throw new ConnectorError(
            `the next page link leaves ${origin} (to ${next.origin}); refusing to follow it`,
            'config_error',
          );
        }
        return next;
      }
    }
  }
}
