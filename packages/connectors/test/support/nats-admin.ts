/** The local NATS (JetStream) for arranging streams, and a private nats-server with a password for auth tests. */
import { freePort } from '@conduit/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startServerProcess, type ServerProcess } from './server-process.js';

export const NATS_CONFIG = { host: '127.0.0.1', port: 4222 };

export async function connectNatsAdmin(): Promise<NatsConnection> {
  try {
    return await connect({ servers: '127.0.0.1:4222', timeout: 5000, reconnect: false });
  } catch (err) {
    throw new Error(`these tests need NATS with JetStream at 127.0.0.1:4222: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** Starts `nats-server` on a free port requiring user/password (the shared server has no auth). */
export async function startAuthNatsServer(user: string, password: string): Promise<ServerProcess> {
  const port = await freePort();
  return startServerProcess(
    'nats-server',
    ['-a', '127.0.0.1', '-p', String(port), '--user', user, '--pass', password],
    port,
  );
}
