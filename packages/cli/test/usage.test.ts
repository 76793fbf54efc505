// Usage mistakes: exit 2 (docs/sdk-cli.md "Exit codes"), a JSON document with -o json, messages that say what to do.
import { Readable } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { conduit, CONFIG, StubApi } from './stub-api.js';

let api: StubApi;
let env: Record<string, string>;
beforeAll(async () => {
  api = await new StubApi().start();
  env = { CONDUIT_URL: api.url, CONDUIT_API_KEY: 'cnd_test' };
});
afterAll(() => api.close());

describe('exit codes', () => {
  it.each([
    [['-o', 'yaml', 'runs'], '--output must be text or json'],
    [['runs', '--limit', 'abc'], '--limit takes a positive integer'],
    [['runs', '--limit', '0'], '--limit takes a positive integer'],
    [['run', 'job', '-p', 'day'], '--param takes key=value'],
  ])('%j is a usage mistake: 2', async (args, message) => {
    const result = await conduit(args, env);
    expect(result).toMatchObject({ code: 2, stderr: expect.stringContaining(message) });
  });

  it('no API URL, and a URL of another origin than the profile, are usage mistakes: 2', async () => {
    expect(await conduit(['whoami'])).toMatchObject({ code: 2, stderr: expect.stringContaining('no API URL') });
    writeFileSync(CONFIG, JSON.stringify({ current_profile: 'p', profiles: { p: { url: api.url, api_key: 'k' } } }));
    const other = await conduit(['whoami', '--url', 'http://127.0.0.1:1']);
    expect(other).toMatchObject({ code: 2, stderr: expect.stringContaining('holds a credential for') });
    writeFileSync(CONFIG, '{}');
  });

  it('an API problem stays 1, its code in the JSON document', async () => {
    const result = await conduit(['-o', 'json', 'run', 'nope'], env);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({ error: { code: 'not_found', detail: 'no job named "nope"' } });
  });

  it('a usage error with -o json is code usage, exit 2', async () => {
    const result = await conduit(['-o', 'json', 'runs', '--limit', '0'], env);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'usage' } });
  });
});

describe("commander's own parse errors", () => {
  it.each([
    [['-o', 'json', 'run', 'big-orders-nightly', '--folow'], "unknown option '--folow'"],
    [['-o', 'json', 'run'], "missing required argument 'job'"],
    [['run', 'x', '--folow', '-o', 'json'], "unknown option '--folow'"],
  ])('with -o json, %j prints the JSON error document: exit 2', async (args, message) => {
    const result = await conduit(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ error: { code: 'usage', detail: expect.stringContaining(message) } });
  });

  it('stay text and help on stderr without -o json', async () => {
    const result = await conduit(['run', 'x', '--folow'], env);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(/unknown option '--folow'[\s\S]*Usage: conduit run/);
  });
});

describe('messages', () => {
  it('--profile naming no profile says so', async () => {
    writeFileSync(CONFIG, JSON.stringify({ current_profile: 'p', profiles: { p: { url: api.url, api_key: 'k' } } }));
    const result = await conduit(['--profile', 'nope', 'whoami']);
    writeFileSync(CONFIG, '{}');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no profile named "nope" in ${CONFIG} (profiles: p)`);
  });

  it('login checks the URL before any request', async () => {
    const requests = api.requests.length;
    const result = await conduit(['login', '--url', 'notaurl', '--api-key', 'k']);
    expect(result).toMatchObject({ code: 2 });
    expect(result.stderr).toContain('--url must be an http(s) URL, e.g. http://127.0.0.1:3000 (got "notaurl")');
    expect(api.requests).toHaveLength(requests);
  });

  it('login --api-key-stdin with an empty stdin says the stdin was empty', async () => {
    const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')!;
    Object.defineProperty(process, 'stdin', { value: Readable.from([]), configurable: true });
    try {
      const result = await conduit(['login', '--url', api.url, '--api-key-stdin']);
      expect(result).toMatchObject({ code: 2, stderr: expect.stringContaining('--api-key-stdin: stdin was empty') });
    } finally {
      Object.defineProperty(process, 'stdin', stdin);
    }
  });
});

it('--version prints the version of package.json', async () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(await conduit(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
});
