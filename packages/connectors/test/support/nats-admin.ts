/** The local NATS (JetStream) for arranging streams, and a private nats-server with a password for auth tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect as tcpConnect } from 'node:net';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { freePort } from './pg-sandbox.js';
import { waitFor } from '@conduit/testing';

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

export interface AuthNatsServer {
  port: number;
  stop(): Promise<void>;
}

/** Starts `nats-server` on a free port requiring user/password (the shared server has no auth). */
export async function startAuthNatsServer(user: string, password: string): Promise<AuthNatsServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'nats-server',
    ['-a', '127.0.0.1', '-p', String(port), '--user', user, '--pass', password],
    {
      stdio: 'ignore',
    },
  );
  // Waits for the port or the process's exit, whichever comes first.
  const up = await waitFor(async () => child.exitCode !== null || (await listening(port)), {
    what: `nats-server on port ${port}`,
    timeoutMs: 10_000,
  }).catch(() => false);
  if (!up || child.exitCode !== null) {
    child.kill();
    throw new Error(`nats-server (from PATH) did not start on port ${port}`);
  }
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
