// openapi-fetch answers `{ data, error, response }`; the SDK's helpers answer the data or throw the problem.
import { apiErrorOf } from './errors.js';
import { rememberETag } from './versions.js';

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The success body (its ETag kept for etagOf), or a ConduitApiError carrying the problem document. */
export async function unwrap<T>(pending: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok) throw apiErrorOf(response, error);
  if (data === undefined) throw apiErrorOf(response, undefined);
  rememberETag(data, response);
  return data;
}

/** For operations that answer 204: resolves when they succeeded. */
export async function expectNoContent(pending: Promise<FetchResult<unknown>>): Promise<void> {
  const { error, response } = await pending;
  if (!response.ok) throw apiErrorOf(response, error);
}

/** `undefined` fields dropped, so that `exactOptionalPropertyTypes` callers and the API's unknown-parameter check agree. */
export function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
