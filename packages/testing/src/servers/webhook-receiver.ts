// A real HTTP receiver for webhook deliveries: the dispatcher's integration tests and the e2e webhooks suite.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver saw it. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** What to do with the n-th request (0-based) on a path: answer a status (with headers), or never answer. */
export type Responder = (n: number, req: Received) => { status: number; headers?: Record<string, string> } | 'hang';

/**
 * A real HTTP receiver on a free port. Each path has its own responder (default 200) and its own log, so tests
 * share one server without seeing each other's requests.
 */
export class Receiver {
  private readonly server: Server;
  private readonly responders = new Map<string, Responder>();
  private readonly received = new Map<string, Received[]>();
  private readonly hanging = new Set<ServerResponse>();
  private path = 0;

  constructor() {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 1000;
  }

  async start(): Promise<void> {
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** A fresh path with its responder; answers the URL a webhook should use. */
  endpoint(responder: Responder = () => ({ status: 200 }), host = '127.0.0.1'): { url: string; path: string } {
    const path = `/hook-${++this.path}`;
    this.responders.set(path, responder);
    return { url: `http://${host}:${this.port}${path}`, path };
  }

  requests(path: string): Received[] {
    return this.received.get(path) ?? [];
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const entry: Received = { path, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const log = this.received.get(path) ?? [];
      log.push(entry);
      this.received.set(path, log);
      const notFound: Responder = () => ({ status: 404 });
      const answer = (this.responders.get(path) ?? notFound)(log.length - 1, entry);
      if (answer === 'hang') {
        this.hanging.add(res);
        return;
      }
      res.writeHead(answer.status, answer.headers ?? {});
      res.end();
    });
  }
}
