/**
 * A TCP server on 127.0.0.1 that accepts connections and never answers: a hung server (or a SIGSTOPped one, or a
 * network partition) as its clients see it, for tests of timeouts and cancellation.
 */
import { createServer, type Socket } from 'node:net';

export interface SilentListener {
  port: number;
  /** Connections the clients have not closed yet: 0 once a client that gave up hung up. */
  openConnections(): number;
  close(): Promise<void>;
}

export async function silentListener(): Promise<SilentListener> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    // Read and drop what the client sends, so that its hang-up is seen.
    socket.resume();
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the listener has no port');
  return {
    port: address.port,
    openConnections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
