// A resource's version (its ETag) and the requests made conditional on it (If-Match): optimistic concurrency without
// changing what the helpers answer. The ETag comes in a header, not the body, so it is kept beside the object the SDK
// answered, for `etagOf` to find.

/** The ETag each resource object was answered with (weakly held: gone with the object). */
const etags = new WeakMap<object, string>();

/** Remembers the answer's ETag for `data` (an object the SDK hands out). */
export function rememberETag(data: unknown, response: Response): void {
  const etag = response.headers.get('etag');
  if (etag !== null && typeof data === 'object' && data !== null) etags.set(data, etag);
}

/**
 * The version of a resource as the SDK answered it (get, create, update), to send back as `ifMatch`: undefined for an
 * object the SDK did not answer, or one answered without an ETag (a list's items).
 */
export function etagOf(resource: object): string | undefined {
  return etags.get(resource);
}

/** Options of an update or delete. */
export interface ConditionalOptions {
  /**
   * Apply only while the resource still has this ETag (`etagOf(resource)`); `*` matches any version. A resource that
   * changed since throws ConduitApiError 412 `precondition_failed` and nothing is changed.
   */
  ifMatch?: string;
}

/**
 * The If-Match header of `options`, as openapi-fetch takes header parameters. `ifMatch` given as undefined (etagOf of
 * an object answered without an ETag, such as a list's item) throws: sending no header would make the write
 * unconditional, the very thing the caller asked to avoid.
 */
export function ifMatchHeader(options: ConditionalOptions): { 'If-Match'?: string } {
  if (!('ifMatch' in options)) return {};
  if (typeof options.ifMatch !== 'string' || options.ifMatch === '')
    throw new TypeError(
      'ifMatch is not an ETag: etagOf() knows none for that object (a list item?); read it with get() first',
    );
  return { 'If-Match': options.ifMatch };
}
