import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { writeConfig } from './config-file.js';
import { clientOf, resolveConnection } from './context.js';
import { Output } from './output.js';

describe("a profile's credential", () => {
  const dir = mkdtempSync(join(tmpdir(), 'conduit-cli-context-'));
  const path = join(dir, 'config.json');
  const before = process.env.CONDUIT_CONFIG;
  beforeAll(() => {
    process.env.CONDUIT_CONFIG = path;
    writeConfig({
      current_profile: 'default',
      profiles: { default: { url: 'https://api.example', api_key: 'cnd_k' } },
    });
  });
  afterAll(() => {
    if (before === undefined) delete process.env.CONDUIT_CONFIG;
    else process.env.CONDUIT_CONFIG = before;
    rmSync(dir, { recursive: true, force: true });
  });

  it('goes to the URL it was saved for, also spelled with a path', () => {
    expect(resolveConnection({}, {}).url).toBe('https://api.example');
    expect(resolveConnection({ url: 'https://api.example/' }, {}).apiKey).toBe('cnd_k');
  });

  it('never to another URL given by --url or CONDUIT_URL', () => {
    expect(() => resolveConnection({ url: 'http://attacker.example' }, {})).toThrow(/holds a credential for/);
    expect(() => resolveConnection({}, { CONDUIT_URL: 'https://api.example:8443' })).toThrow(/holds a credential/);
  });

  it('but a credential from the environment goes where the environment says', () => {
    const connection = resolveConnection({}, { CONDUIT_URL: 'https://other.example', CONDUIT_API_KEY: 'cnd_env' });
    expect(connection).toMatchObject({ url: 'https://other.example', apiKey: 'cnd_env' });
  });
});

describe('plain http', () => {
  const notes = (url: string): string => {
    const stderr = new PassThrough();
    const out = new Output(
      'text',
      new PassThrough() as unknown as NodeJS.WriteStream,
      stderr as unknown as NodeJS.WriteStream,
      {},
    );
    clientOf({ profile: 'p', url, apiKey: 'cnd_k', token: undefined, source: { url: '', credential: '' } }, out);
    return String(stderr.read() ?? '');
  };

  it('is warned of when the credential would cross a network, not on this machine', () => {
    expect(notes('http://api.example:3000')).toMatch(/plain http/);
    expect(notes('http://localhost:3000')).toBe('');
    expect(notes('http://127.0.0.1:3000')).toBe('');
    expect(notes('https://api.example')).toBe('');
  });
});
