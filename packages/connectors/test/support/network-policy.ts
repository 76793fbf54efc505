/** Operator network settings for a suite, and a TCP listener that records whether anything connected to it. */
import { createServer, type Socket } from 'node:net';

/** Sets environment variables for one test (or suite); the returned function puts the previous values back. */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const previous = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  return () => apply(previous);
}

/** The suite's servers run on this machine: allow private networks for its tests, as an operator would. */
export function allowPrivateNetworks(): void {
  let restore: () => void = () => undefined;
  beforeAll(() => {
    restore = setEnv({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
  });
  afterAll(() => restore());
}

export interface RecordingListener {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A TCP server on 127.0.0.1 that counts the connections it gets and closes each at once. */
export async function recordingListener(): Promise<RecordingListener> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
