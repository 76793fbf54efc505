/** The node-level options of an http read (they arrive in the ReadRequest), checked and defaulted. */
import { ConnectorError } from '../connector-error.js';
import type { ReadRequest } from '../types.js';
import { parseJsonPath } from './json-path.js';

export type Pagination = 'none' | 'page' | 'cursor' | 'link';

export interface HttpReadOptions {
  /** Relative to base_url; default `/`. */
  path: string;
  /** Query parameters of the first request. */
  params: Record<string, string>;
  /** Where the records are in each answer (e.g. `data.items`); default the whole answer. */
  records_path: string;
  pagination: Pagination;
  page_param: string;
  per_page_param: string;
  per_page: number;
  start_page: number;
  /** Where the next cursor is in each answer (cursor pagination). */
  cursor_path: string;
  cursor_param: string;
  /** A bound against endless paging; default 10000. */
  max_pages: number;
}

const PAGINATIONS = new Set(['none', 'page', 'cursor', 'link']);

const fail = (message: string): never => {
  throw new ConnectorError(message, 'config_error');
};

function stringOption(req: ReadRequest, name: string, fallback: string): string {
  const value = req[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string') return fail(`${name} must be a string`);
  return value;
}

function integerOption(req: ReadRequest, name: string, fallback: number, min: number): number {
  const value = req[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    return fail(`${name} must be an integer >= ${min}`);
  return value;
}

function paramsOption(req: ReadRequest): Record<string, string> {
  const value = req['params'];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return fail('params must be an object of query parameters');
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (!['string', 'number', 'boolean'].includes(typeof v)) fail(`params.${key} must be a string, number or boolean`);
    out[key] = String(v);
  }
  return out;
}

export function parseHttpReadOptions(req: ReadRequest): HttpReadOptions {
  const pagination = stringOption(req, 'pagination', 'none');
  if (!PAGINATIONS.has(pagination)) fail(`pagination must be one of none, page, cursor, link (got "${pagination}")`);
  const options: HttpReadOptions = {
    path: stringOption(req, 'path', '/'),
    params: paramsOption(req),
    records_path: stringOption(req, 'records_path', ''),
    pagination: pagination as Pagination,
    page_param: stringOption(req, 'page_param', 'page'),
    per_page_param: stringOption(req, 'per_page_param', 'per_page'),
    per_page: integerOption(req, 'per_page', 100, 1),
    start_page: integerOption(req, 'start_page', 1, 0),
    cursor_path: stringOption(req, 'cursor_path', ''),
    cursor_param: stringOption(req, 'cursor_param', 'cursor'),
    max_pages: integerOption(req, 'max_pages', 10_000, 1),
  };
  if (options.pagination === 'cursor' && options.cursor_path === '') fail('cursor pagination needs cursor_path');
  for (const path of [options.records_path, options.cursor_path]) {
    try {
      parseJsonPath(path);
    } catch (err) {
      fail((err as Error).message);
    }
  }
  return options;
}
