// A tiny real HTTP server for the client's tests: each test scripts the answers, the server records the requests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void;

export interface TestServer {
  baseUrl: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(seen);
      handler(seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': status >= 400 ? 'application/problem+json' : 'application/json',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

export function problem(status: number, code: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: `/problems/${code}`,
    title: code.replace(/_/g, ' '),
    status,
    code,
    detail: `${code} happened`,
    instance: '/v2/x',
    request_id: 'req_test',
    ...extra,
  };
}

export function project(id: string): Record<string, unknown> {
  return {
    id,
    name: id,
    description: null,
    template: null,
    created_at: '2026-11-22T10:15:00.000Z',
    updated_at: '2026-11-22T10:15:00.000Z',
  };
}
