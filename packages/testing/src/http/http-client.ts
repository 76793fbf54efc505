/** An HTTP answer as a test reads it: the body parsed when it is JSON, typed by the caller (unknown by default). */
export interface HttpResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON, with its content type unless `headers` sets one. */
  body?: unknown;
  /** Sent as is, without JSON encoding or a content type. */
  rawBody?: string | Buffer;
}

/**
 * One HTTP call, JSON in and out. `T` is what the caller expects the body to be; it is not checked (parse with the
 * API's zod schema where the shape is what the test is about).
 */
export async function httpRequest<T = unknown>(url: string, request: HttpRequest = {}): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { ...request.headers };
  let body: string | Buffer | undefined;
  if (request.rawBody !== undefined) body = request.rawBody;
  else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method: request.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  const parsed: unknown = text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined;
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}
