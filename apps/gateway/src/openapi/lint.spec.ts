// CI's lint of the generated document: Redocly (recommended rules) and Spectral (spectral:oas), 0 errors and 0
// warnings. The rulesets are apps/gateway/redocly.yaml and apps/gateway/.spectral.yaml.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from './document.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const binOf = (pkg: string, bin: string) => join(dirname(require.resolve(`${pkg}/package.json`)), bin);
// No telemetry or update check: CI reaches no network but the package registries.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

describe('the OpenAPI document passes the linters', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'conduit-openapi-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(buildOpenApiDocument(), null, 2));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('Redocly CLI, recommended ruleset: no error, no warning', async () => {
    const { stdout } = await run(
      process.execPath,
      [binOf('@redocly/cli', 'bin/cli.js'), 'lint', file, '--format=json', '--config', 'redocly.yaml'],
      {
        env,
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((err: { stdout: string }) => err);
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('Spectral, spectral:oas: no error, no warning', async () => {
    const out = join(dir, 'spectral.json');
    await run(
      process.execPath,
      [
        binOf('@stoplight/spectral-cli', 'dist/index.js'),
        'lint',
        file,
        '--ruleset',
        '.spectral.yaml',
        '--format',
        'json',
        '--output',
        out,
      ],
      {
        env,
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((err: unknown) => err);
    const results = JSON.parse(readFileSync(out, 'utf8')) as {
      code: string;
      message: string;
      path: string[];
      severity: number;
    }[];
    expect(results.map((r) => ({ rule: r.code, at: r.path.join('.'), message: r.message }))).toEqual([]);
  }, 120_000);
});
