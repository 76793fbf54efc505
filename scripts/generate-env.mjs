// `npm run generate-env [-- <file>]`: writes the secrets docker-compose.yml requires into .env (or <file>) with fresh
// random values. A value already in the file is kept: a new SECRETS_KEY would make every stored secret unreadable,
// and a new POSTGRES_PASSWORD would not match a database volume made with the old one.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ROOT } from './local-env.mjs';

const GENERATORS = {
  // 32 bytes as 64 hex characters (AES-256-GCM).
  SECRETS_KEY: () => randomBytes(32).toString('hex'),
  BOOTSTRAP_API_KEY: () => `cnd_${randomBytes(24).toString('hex')}`,
  // Hex, so it needs no escaping inside DATABASE_URL.
  POSTGRES_PASSWORD: () => randomBytes(16).toString('hex'),
};

const file = resolve(process.cwd(), process.argv[2] ?? resolve(ROOT, '.env'));
const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
const present = new Set(
  existing
    .split('\n')
    .map((line) => /^\s*(?:export\s+)?([A-Z0-9_]+)\s*=\s*\S/.exec(line)?.[1])
    .filter(Boolean),
);
const added = Object.keys(GENERATORS).filter((name) => !present.has(name));
const lines = added.map((name) => `${name}=${GENERATORS[name]()}`);
if (lines.length > 0) {
  const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
  writeFileSync(file, `${existing}${separator}${lines.join('\n')}\n`, { mode: 0o600 });
}
// Secrets: readable by the owner only, also when the file existed before.
if (existsSync(file)) chmodSync(file, 0o600);
process.stdout.write(
  added.length > 0
    ? `${file}: wrote ${added.join(', ')}${present.size > 0 ? ' (kept the values already there)' : ''}\n`
    : `${file}: already has ${Object.keys(GENERATORS).join(', ')}; nothing changed\n`,
);
