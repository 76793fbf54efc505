// `npm run migrate`: applies every service's migrations and exits (compose's migrate step and each Kubernetes pod's init container run the same migrate.js files).
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
