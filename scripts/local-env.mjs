import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FILE = resolve(ROOT, '.conduit/local.env');

/**
 * Settings of a local stack: the environment wins, then `.conduit/local.env`, which is made once with a fresh
 * bootstrap key and secrets key so that a restart keeps working with the same key and the same encrypted data.
 */
export function localEnv() {
  if (!existsSync(FILE)) {
    mkdirSync(dirname(FILE), { recursive: true });
    const lines = [
      `BOOTSTRAP_API_KEY=cnd_local_${randomBytes(24).toString('hex')}`,
      `SECRETS_KEY=${randomBytes(32).toString('hex')}`,
    ];
    writeFileSync(FILE, lines.join('\n') + '\n', { mode: 0o600 });
  }
  const fromFile = Object.fromEntries(
    readFileSync(FILE, 'utf8')
      .split('\n')
      .filter((l) => l.includes('=') && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  // A developer's machine: the services accept well-known secrets here, and only here (docs/operations.md), and
  // connectors and webhooks may reach the machine's own servers (a local PostgreSQL, a receiver on localhost); the
  // platform's own database and Redis stay refused. Compose and Kubernetes keep the refusals (docs/security.md).
  return {
    CONDUIT_ENV: 'development',
    CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    ...fromFile,
    ...process.env,
  };
}
