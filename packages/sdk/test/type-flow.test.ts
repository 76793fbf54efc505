// The SDK's types hold a whole flow under tsc --strict with no cast (typecheck/flow.ts, against the built package).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTsc } from '@conduit/testing';

const flowDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'typecheck');

describe('the SDK under tsc --strict', () => {
  it('compiles the flow project -> connector -> pipeline -> job -> trigger -> logs -> wait -> list', async () => {
    expect(await runTsc(['-p', join(flowDir, 'tsconfig.json')])).toEqual({ code: 0, out: '' });
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
    const result = await runTsc([
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
    ]);
    expect(result.out).toMatch(/error TS2322: Type '"sometimes"' is not assignable/);
  }, 120_000);
});
