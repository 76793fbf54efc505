import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { problemDocument } from '@conduit/contracts';
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

/**
 * Fastify's `clientErrorHandler`: a request Node refuses before any route sees it (a NUL or other control byte
 * in the request line or a header, a malformed head) gets a 400 problem document like every other bad input,
 * not Fastify's bare JSON. Header overflow (431) and timeouts (408) keep their own statuses.
 */
export function onClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Fastify's own answers for these two, unchanged.
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return write(
      socket,
      431,
      'application/json',
      '{"error":"Request Header Fields Too Large","message":"Exceeded maximum allowed HTTP header size","statusCode":431}',
    );
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return write(
      socket,
      408,
      'application/json',
      '{"error":"Request Timeout","message":"Client Timeout","statusCode":408}',
    );
  }
  // The request line may not have been read: the instance is the root, the id a new one.
  const requestId = newId('request');
  const detail = `the request is malformed: ${error.message.replace(/^Parse Error: /, '')}`;
  const doc = problemDocument({ code: 'invalid_parameter', detail }, '/', requestId);
  write(socket, 400, 'application/problem+json', JSON.stringify(doc), `X-Request-Id: ${requestId}\r\n`);
}
