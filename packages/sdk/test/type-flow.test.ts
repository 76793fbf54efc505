// The SDK's types hold a whole flow under tsc --strict with no cast (typecheck/flow.ts, against the built package).
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const flowDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'typecheck');
// The repository's TypeScript (the root's), not the TypeScript 5 openapi-typescript keeps for itself.
const tsc = join(
  dirname(createRequire(join(flowDir, '..', '..', '..', 'package.json')).resolve('typescript/package.json')),
  'bin',
  'tsc',
);

describe('the SDK under tsc --strict', () => {
  it('compiles the flow project -> connector -> pipeline -> job -> trigger -> logs -> wait -> list', async () => {
    const result = await run(process.execPath, [tsc, '-p', join(flowDir, 'tsconfig.json')]).then(
      () => ({ code: 0, out: '' }),
      (err: { code: number; stdout: string; stderr: string }) => ({
        code: err.code,
        out: `${err.stdout}${err.stderr}`,
      }),
    );
    expect(result).toEqual({ code: 0, out: '' });
  }, 120_000);

  it('the flow takes no cast and no any', () => {
    const source = readFileSync(join(flowDir, 'flow.ts'), 'utf8').replace(/\/\/.*$/gm, '');
    expect(source).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]/);
    expect(source).not.toMatch(/\bany\b|!\./);
  });

  it('a wrong body does not compile', async () => {
    const bad = join(flowDir, 'generated', 'bad-flow.ts');
    mkdirSync(dirname(bad), { recursive: true });
    writeFileSync(
      bad,
      "import { createConduitClient } from '@conduit/sdk';\nexport const p = createConduitClient({ baseUrl: 'x' }).jobs.create({ name: 'j', pipeline_id: 'p', concurrency_policy: 'sometimes' });\n",
    );
    const result = await run(process.execPath, [
      tsc,
      '--strict',
      '--noEmit',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--lib',
      'ES2023,DOM',
      '--skipLibCheck',
      '--ignoreConfig',
      bad,
    ]).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
    expect(result).toMatch(/error TS2322: Type '"sometimes"' is not assignable/);
  }, 120_000);
});
