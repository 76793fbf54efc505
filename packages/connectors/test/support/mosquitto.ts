/** A private Mosquitto on a free port that requires a password (the shared broker allows anonymous clients). */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './pg-sandbox.js';
import { waitFor } from '@conduit/testing';

export interface AuthBroker {
  port: number;
  stop(): Promise<void>;
}

export async function startAuthMosquitto(user: string, password: string): Promise<AuthBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'conduit-mosquitto-'));
  const port = await freePort();
  execFileSync('mosquitto_passwd', ['-b', '-c', join(dir, 'passwd'), user, password]);
  writeFileSync(
    join(dir, 'mosquitto.conf'),
    `listener ${port} 127.0.0.1\nallow_anonymous false\npassword_file ${join(dir, 'passwd')}\npersistence false\n`,
  );
  // Started as root, mosquitto drops to its own user, which must be able to read these files.
  chmodSync(dir, 0o755);
  chmodSync(join(dir, 'passwd'), 0o644);
  const child = spawn('mosquitto', ['-c', join(dir, 'mosquitto.conf')], { stdio: 'ignore' });
  // Waits for the port or the process's exit, whichever comes first.
  const up = await waitFor(async () => child.exitCode !== null || (await listening(port)), {
    what: `mosquitto on port ${port}`,
    timeoutMs: 10_000,
  }).catch(() => false);
  if (!up || child.exitCode !== null) {
    child.kill();
    throw new Error(`mosquitto (from PATH) did not start on port ${port}`);
  }
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
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
