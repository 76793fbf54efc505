/**
 * Reads JSON records page by page: one batch per page. Paging follows page numbers (page/per_page parameters),
 * a cursor taken from each answer, or the Link header's rel="next"; it stops at an empty or short page, a missing
 * cursor or link, or max_pages. A next link must stay on the base URL's origin (the credentials go with it).
 */
import { isSafeNumber, LosslessNumber, parse as parseLossless } from 'lossless-json';
import { ConnectorError } from '../connector-error.js';
import { scalarText } from '../formats/scalar-text.js';
import { DEFAULT_JSON_PAGE_MAX_BYTES } from '../transfer-buffers.js';
import type { ReadRequest, Row } from '../types.js';
import { resolveUrl, type HttpConfig } from './http.config.js';
import type { HttpSession } from './http-session.js';
import { valueAt } from './json-path.js';
import { nextLink } from './link-header.js';
import { parseHttpReadOptions, type HttpReadOptions } from './read-options.js';

const tooLarge = (err: unknown): boolean => err instanceof ConnectorError && err.code === 'response_too_large';

const pageTooLarge = (what: string, maxBytes: number): ConnectorError =>
  new ConnectorError(
    `GET ${what} answered a page larger than ${(maxBytes / 1024 / 1024).toFixed(1)} MiB, the most a run parses at ` +
      "once (a sixteenth of RUN_MEMORY_LIMIT): ask for smaller pages (per_page, or the API's own page size)",
    'config_error',
    { code: 'response_too_large' },
  );

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

/**
 * A number JSON.parse would change (an id past 2^53, 23 significant digits) kept as its text (LosslessNumber, which
 * lossless-json's stringify writes back as it came); any other as a JS number.
 */
const exactNumber = (text: string): number | LosslessNumber =>
  isSafeNumber(text) ? Number(text) : new LosslessNumber(text);

/** A run of digits longer than any number a JS number holds exactly (2^53 has 16): only then is the slower parse needed. */
const LONG_DIGITS = /\d{16}/;

function parseJson(body: string, what: string, exactNumbers: boolean): unknown {
  try {
    if (!exactNumbers || !LONG_DIGITS.test(body)) return JSON.parse(body);
    // As JSON.parse does, the last of a key given twice wins.
    return parseLossless(body, null, { parseNumber: exactNumber, onDuplicateKey: ({ newValue }) => newValue });
  } catch {
    throw new ConnectorError(`${what} did not answer JSON`, 'config_error');
  }
}

/**
 * The answers' records, page by page. `exactNumbers`: a number JSON.parse would change stays a LosslessNumber (its
 * exact text), for a reader that writes the records back as JSON (read-into-table.ts) rather than using their values.
 */
export async function* readRecords(
  session: HttpSession,
  req: ReadRequest,
  {
    exactNumbers = false,
    pageMaxBytes = DEFAULT_JSON_PAGE_MAX_BYTES,
  }: { exactNumbers?: boolean; pageMaxBytes?: number | undefined } = {},
): AsyncGenerator<Row[]> {
  const opts = parseHttpReadOptions(req);
  const origin = new URL(session.cfg.base_url).origin;
  let url: URL | undefined = firstUrl(session.cfg, opts);
  let page = opts.start_page;
  for (let pages = 0; url && pages < opts.max_pages; pages++) {
    req.signal?.throwIfAborted();
    const res = await session
      .request('GET', url, undefined, req.signal, { maxBodyBytes: pageMaxBytes })
      .catch((err: unknown) => {
        throw tooLarge(err) ? pageTooLarge(session.describe(url!), pageMaxBytes) : err;
      });
    const document = parseJson(res.body, `GET ${session.describe(url)}`, exactNumbers);
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
        next.searchParams.set(opts.cursor_param, cursor instanceof LosslessNumber ? cursor.value : scalarText(cursor));
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
