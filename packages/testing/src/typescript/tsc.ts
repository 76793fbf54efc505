import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
// packages/testing/dist/typescript/tsc.js -> the repository root.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
// The repository's compiler (the root's typescript), not one a dependency (openapi-typescript) brings for itself.
const tsc = join(dirname(createRequire(join(ROOT, 'package.json')).resolve('typescript/package.json')), 'bin', 'tsc');

/** What a tsc run answered: its exit code and its output (empty when it compiled cleanly). */
export interface TscResult {
  code: number;
  out: string;
}

/** Runs the repository's tsc with `args`; a failed compile is an answer, not a rejection. */
export async function runTsc(args: readonly string[]): Promise<TscResult> {
  return run(process.execPath, [tsc, ...args]).then(
    () => ({ code: 0, out: '' }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, out: `${err.stdout}${err.stderr}` }),
  );
}
