/** A server of the test's own as a child process (mosquitto, nats-server from PATH), up once its port takes connections. */
import { spawn, type SpawnOptions } from 'node:child_process';
import { connect as tcpConnect } from 'node:net';
import { waitFor } from '@conduit/testing';

export interface ServerProcess {
  port: number;
  /** SIGTERM, resolved when the process has exited. */
  stop(): Promise<void>;
}

/**
 * Spawns `command` with `args`, which should listen on 127.0.0.1:`port`; resolves once the port takes connections,
 * and fails when the process exits first or is not up in 10 s.
 */
export async function startServerProcess(
  command: string,
  args: string[],
  port: number,
  options: SpawnOptions = {},
): Promise<ServerProcess> {
  const child = spawn(command, args, { stdio: 'ignore', ...options });
  // Waits for the port or the process's exit, whichever comes first.
  const up = await waitFor(async () => child.exitCode !== null || (await listening(port)), {
    what: `${command} on port ${port}`,
    timeoutMs: 10_000,
  }).catch(() => false);
  if (!up || child.exitCode !== null) {
    child.kill();
    throw new Error(`${command} (from PATH) did not start on port ${port}`);
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
