import type { ProblemDocument } from '@conduit/contracts';
import { httpRequest, type HttpResponse, type Stack } from '@conduit/testing';

export type ApiResponse<T = unknown> = HttpResponse<T>;

export interface CallOptions {
  key?: string | null;
  bearer?: string;
  body?: unknown;
  /** Sent as is, without JSON encoding or a content type. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

/** One HTTP call as a client makes it: the bootstrap key unless told otherwise, JSON in and out. */
export async function call<T = unknown>(
  stack: Stack,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? stack.bootstrapKey : opts.key;
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  else if (key !== null) headers['x-api-key'] = key;
  const { body, rawBody } = opts;
  return httpRequest<T>(`${stack.baseUrl}${path}`, { method, headers, body, rawBody });
}

/** The problem code of an answer, if its body is a problem document (undefined for a success). */
export function problemCode(res: ApiResponse): string | undefined {
  const body = res.body;
  return typeof body === 'object' && body !== null && 'code' in body && typeof body.code === 'string'
    ? body.code
    : undefined;
}

/** Asserts an RFC 9457 problem document with the documented status and code. */
export function expectProblem(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: problemCode(res) }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({
    status,
    code,
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
    request_id: expect.any(String),
  });
  expect(res.headers.get('x-request-id')).toBe((res.body as ProblemDocument).request_id);
}
