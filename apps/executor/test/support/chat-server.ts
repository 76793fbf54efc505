// A local OpenAI-compatible chat completions server (node:http) answering from a per-test script.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatCall {
  headers: IncomingHttpHeaders;
  body: {
    model?: string;
    messages: { role: string; content: string }[];
    response_format?: {
      type: string;
      json_schema?: { name: string; strict: boolean; schema: Record<string, unknown> };
    };
    [k: string]: unknown;
  };
}

/** What the server does with one request: answer with a status and JSON body, or never answer. */
export type ChatReply = { status: number; body: unknown } | 'hang';

export interface ScriptedChatServer {
  /** e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string;
  /** Requests received, in order. */
  calls: ChatCall[];
  /** Replies for the next requests, in order; a request beyond the script gets a 500. */
  script(...replies: ChatReply[]): void;
  close(): Promise<void>;
}

/** A 200 chat completion whose message content is `content`. */
export function completion(
  content: string,
  usage = { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 },
  model = 'scripted-model-1',
): ChatReply {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage,
    },
  };
}

export const answer = (choice: string, reason: string, confidence: number): ChatReply =>
  completion(JSON.stringify({ choice, reason, confidence }));

export async function startChatServer(): Promise<ScriptedChatServer> {
  const calls: ChatCall[] = [];
  let replies: ChatReply[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      calls.push({
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatCall['body'],
      });
      const reply = replies.shift() ?? {
        status: 500,
        body: { error: { message: 'the test script has no reply for this request' } },
      };
      if (reply === 'hang') return;
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    script: (...next) => {
      calls.length = 0;
      replies = next;
    },
    close: async () => {
      // Hung requests hold their sockets open; close them so the server can stop.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
