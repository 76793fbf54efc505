// `npm run migrate`: applies every service's migrations and exits (the Kubernetes migration Job runs the same).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { SERVICES } from './services.mjs';
import { ROOT, localEnv } from './local-env.mjs';

const env = localEnv();
for (const service of SERVICES) {
  const script = resolve(ROOT, `apps/${service.name}/dist/migrate.js`);
  if (!existsSync(script)) continue;
  const result = spawnSync(process.execPath, [script], { env, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`migrations of ${service.name} failed\n`);
    process.exit(result.status ?? 1);
  }
}
