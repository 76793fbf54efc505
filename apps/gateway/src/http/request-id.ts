import { newId } from '@conduit/service-kit';
import type { IncomingMessage } from 'node:http';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's genReqId: echo the client's X-Request-Id when it is sane, else make one. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : newId('request');
}
