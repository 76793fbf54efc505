// Replica processes of a test service, for the tests that kill one.
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REDIS_URL } from './redis.js';

const replicaScript = fileURLToPath(new URL('../fixtures/replica.mjs', import.meta.url));
const builtEntry = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

export interface ReplicaProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
}

/** Forks test/fixtures/replica.mjs (which imports the built dist) and resolves once it listens. */
export async function startReplica(name: string, prefix: string, claimIdleMs: number): Promise<ReplicaProcess> {
  if (!existsSync(builtEntry)) throw new Error('dist/ is missing: run `npm run build -w @conduit/rpc-streams` first');
  const child = fork(replicaScript, [], {
    env: { ...process.env, REDIS_URL, PREFIX: prefix, REPLICA: name, CLAIM_IDLE_MS: String(claimIdleMs) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica ${name} did not start within 15 s`)), 15_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`replica ${name} exited with code ${String(code)} before it was ready`));
    });
  });
  return { name, child, exited };
}

export async function killReplica(replica: ReplicaProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill(signal);
  await replica.exited;
}
