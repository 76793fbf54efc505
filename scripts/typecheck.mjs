// `npm run lint:types`: type-checks every workspace's sources and tests together (its tsconfig.lint.json; e2e's
// tsconfig.json), which neither the build (sources only) nor jest (transpiles without checking) does. Two at a
// time; prints each failing project's errors and exits 1 if any failed.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const projects = ['apps', 'packages']
  .flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(group, name, 'tsconfig.lint.json')))
  .concat(['deploy/tsconfig.lint.json', 'e2e/tsconfig.json'])
  .filter((project) => existsSync(join(ROOT, project)));

function check(project) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSC, '--noEmit', '-p', project],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => resolve({ project, ok: !err, output: stdout }),
    );
  });
}

const failed = [];
const queue = [...projects];
await Promise.all(
  [0, 1].map(async () => {
    for (let project = queue.shift(); project; project = queue.shift()) {
      const result = await check(project);
      if (!result.ok) failed.push(result);
    }
  }),
);
for (const { project, output } of failed) process.stdout.write(`\n${project}:\n${output}`);
console.log(`${projects.length - failed.length} of ${projects.length} projects type-check`);
process.exit(failed.length > 0 ? 1 : 0);
