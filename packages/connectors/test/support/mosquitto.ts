/** A private Mosquitto on a free port that requires a password (the shared broker allows anonymous clients). */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@conduit/testing';
import { startServerProcess, type ServerProcess } from './server-process.js';

export async function startAuthMosquitto(user: string, password: string): Promise<ServerProcess> {
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
  const broker = await startServerProcess('mosquitto', ['-c', join(dir, 'mosquitto.conf')], port).catch(
    (err: unknown) => {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    },
  );
  return {
    port,
    async stop() {
      await broker.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
