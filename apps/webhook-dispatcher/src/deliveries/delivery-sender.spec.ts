// A receiver's answer body is read only so far and so long: one that trickles or never ends loses its connection.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DRAIN_MAX_BYTES, DRAIN_MS, DeliverySender } from './delivery-sender.js';

let server: Server;
let answer: (res: ServerResponse) => void;
const closed: Promise<void>[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    answer(res);
  });
  server.on('connection', (socket: Socket) => {
    closed.push(new Promise((resolve) => socket.on('close', () => resolve())));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function target(): Parameters<DeliverySender['send']>[0] {
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/hook`), address: '127.0.0.1', family: 4 };
}

async function sendOnce(
  respond: (res: ServerResponse) => void,
): Promise<{ status: number | null; closedAfterMs: number }> {
  answer = respond;
  const sender = new DeliverySender();
  const started = Date.now();
  const result = await sender.send(target(), {}, '{}', 5_000);
  await closed.at(-1);
  const closedAfterMs = Date.now() - started;
  sender.close();
  return { status: result.statusCode, closedAfterMs };
}

it('answers with the status at once, and closes a connection whose body trickles after DRAIN_MS', async () => {
  let timer: NodeJS.Timeout | undefined;
  const { status, closedAfterMs } = await sendOnce((res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    timer = setInterval(() => res.write('x'), 100);
    res.on('close', () => clearInterval(timer));
  });
  expect(status).toBe(200);
  expect(closedAfterMs).toBeGreaterThanOrEqual(DRAIN_MS - 50);
  expect(closedAfterMs).toBeLessThan(DRAIN_MS + 2_000);
});

it('closes a connection whose body goes past DRAIN_MAX_BYTES', async () => {
  const chunk = Buffer.alloc(16 * 1024, 'y');
  const { status, closedAfterMs } = await sendOnce((res) => {
    res.writeHead(200);
    const more = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', more);
    };
    more();
  });
  expect(status).toBe(200);
  expect(DRAIN_MAX_BYTES).toBeLessThan(1024 * 1024);
  expect(closedAfterMs).toBeLessThan(DRAIN_MS);
});
