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

/** The If-Match header of `options`, as openapi-fetch takes header parameters. */
export function ifMatchHeader(options: ConditionalOptions): { 'If-Match'?: string } {
  return options.ifMatch === undefined ? {} : { 'If-Match': options.ifMatch };
}
