import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { problemDocument, type ErrorCode } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';

/** Node's error for a request it could not parse: `HPE_*` codes from llhttp, timeouts, resets. */
interface ConnectionError extends Error {
  code?: string;
}

function write(socket: Socket, status: number, contentType: string, body: string, extraHeaders = ''): void {
  // As Node and Fastify do by default: answer if the socket still takes it, then drop the connection.
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: ${contentType}\r\n${extraHeaders}` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function writeProblem(
  socket: Socket,
  code: ErrorCode,
  detail: string,
  instance = '/',
  requestId = newId('request'),
): void {
  const doc = problemDocument({ code, detail }, instance, requestId);
  write(socket, doc.status, 'application/problem+json', JSON.stringify(doc), `X-Request-Id: ${requestId}\r\n`);
}

/**
 * Fastify's `clientErrorHandler`: a request Node refuses before any route sees it (a NUL or other control byte
 * in the request line or a header, a malformed head, a head over Node's 16 KiB, one not received in time) gets a
 * problem document with its X-Request-Id like every other answer (api.md), not Node's or Fastify's bare JSON. The
 * request line may not have been read: the instance is the root, the id a new one.
 */
export function onClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return writeProblem(socket, 'headers_too_large', `the request line and headers are over ${maxHeaderSize} bytes`);
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return writeProblem(socket, 'request_timeout', 'the request was not received in time');
  }
  writeProblem(socket, 'invalid_parameter', `the request is malformed: ${error.message.replace(/^Parse Error: /, '')}`);
}

/**
 * Fastify's `frameworkErrors`: a URL that is no valid percent-encoding (`/v2/projects/%ff`) names no resource: a 404
 * problem, as a malformed id is (api.md), instead of Fastify's bare 400. Any other error Fastify raises before routing
 * keeps its class: a 4xx is the request's fault (invalid_parameter), anything else ours (internal, saying nothing).
 */
export function onFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const requestId = String(request.id);
  const clientFault = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500;
  const doc = problemDocument(
    error.code === 'FST_ERR_BAD_URL'
      ? { code: 'not_found', detail: 'the path is not valid percent-encoding' }
      : clientFault
        ? { code: 'invalid_parameter', detail: `the request is malformed: ${error.message}` }
        : { code: 'internal', detail: 'an unexpected error; the request id ties it to the logs' },
    // The path as sent (still percent-encoded), as every other problem names it; the query may hold anything.
    request.url.split('?', 1)[0] || '/',
    requestId,
  );
  void reply
    .code(doc.status)
    .header('x-request-id', requestId)
    .type('application/problem+json')
    .send(JSON.stringify(doc));
}
