import { scrubbedValue, scrubSecrets, secretScrubber, WITHHELD_MESSAGE } from './secret-scrub.js';

describe('scrubSecrets', () => {
  it('masks a long secret where it stands', () => {
    expect(scrubSecrets('auth failed for key sk-live-0123456789 (sk-live-0123456789)', ['sk-live-0123456789'])).toBe(
      'auth failed for key ******** (********)',
    );
  });

  it('withholds the whole text when a short secret occurs, rather than spelling it out by masking', () => {
    const text = 'database "nodb_xyz" does not exist (SQLSTATE 3D000)';
    expect(scrubSecrets(text, ['x'])).toBe(WITHHELD_MESSAGE);
    expect(scrubSecrets(text, ['x'])).not.toContain('x');
    expect(scrubSecrets('Connection terminated unexpectedly', ['pw1'])).toBe('Connection terminated unexpectedly');
  });

  it('masks a secret in the forms a server echoes it: JSON-escaped, percent-encoded, in any case', () => {
    const secret = 'QuoTe"Secret\\Value12345';
    const echoed = JSON.stringify({ 'x-token': secret });
    expect(echoed).toContain('QuoTe\\"Secret\\\\Value12345');
    expect(scrubSecrets(`echo: ${echoed}`, [secret])).toBe('echo: {"x-token":"********"}');
    expect(scrubSecrets('authorization: bearer toktoksecretvalue42', ['TokTokSecretValue42'])).toBe(
      'authorization: bearer ********',
    );
    expect(scrubSecrets(`GET /?key=${encodeURIComponent('p@ss word/1')}`, ['p@ss word/1'])).toBe('GET /?key=********');
    expect(scrubSecrets('Short PW1 echoed', ['pw1'])).toBe(WITHHELD_MESSAGE);
  });

  it('masks a part of a long secret a server echoed: ten characters or more of its start', () => {
    const token = 'tok_LiveProdToken_9f8e7d6c5b4a';
    expect(scrubSecrets('401: invalid token tok_LiveProd... (truncated)', [token])).toBe(
      '401: invalid token ********... (truncated)',
    );
    expect(scrubSecrets('401: invalid token TOK_LIVEPRODTOKEN_9f (truncated)', [token])).toBe(
      '401: invalid token ******** (truncated)',
    );
    // Ten from its middle too; fewer than ten characters stay.
    expect(scrubSecrets('token kenX9f8e7d6c5b rejected', [token])).toBe('token kenX******** rejected');
    expect(scrubSecrets('token tok_LiveP, 9f8e7d6c5 rejected', [token])).toBe('token tok_LiveP, 9f8e7d6c5 rejected');
  });

  it('leaves a text without secrets alone, whatever their length', () => {
    expect(scrubSecrets('connection refused', ['', 'a-long-secret-value', 'zz'])).toBe('connection refused');
  });

  it('masks the other forms servers write: \\/ and \\u escapes, + for a space', () => {
    expect(scrubSecrets('{"u":"http:\\/\\/x\\/Path\\/Secret1"}', ['http://x/Path/Secret1'])).toBe('{"u":"********"}');
    expect(scrubSecrets('{"p":"S\\u00f6me-Secret"}', ['Söme-Secret'])).toBe('{"p":"********"}');
    expect(scrubSecrets('body: pw=two+words+secret', ['two words secret'])).toBe('body: pw=********');
  });

  it('masks overlapping occurrences as one, and never throws on a secret with a lone surrogate', () => {
    expect(scrubSecrets('x abcdefghij-klmno y', ['abcdefghij', 'fghij-klmno'])).toBe('x ******** y');
    expect(scrubSecrets('text', ['\ud800-not-unicode'])).toBe('text');
  });

  it('stays fast for many long secrets (a tenant chooses them): no pattern is compiled from them', () => {
    const secrets = Array.from({ length: 1500 }, (_, i) => `${i}-${'k'.repeat(8_000)}`);
    const text = `${'ordinary log text '.repeat(5_000)}${secrets[1499]}`;
    const started = performance.now();
    const scrub = secretScrubber(secrets);
    expect(scrub(text).endsWith('********')).toBe(true);
    // ~0.3 s here on a quiet machine; a pattern compiled from them took 17 s for 500 and aborted V8 at 1,500. The
    // bound leaves room for a machine busy with other suites.
    expect(performance.now() - started).toBeLessThan(8_000);
  });
});

describe('scrubbedValue', () => {
  it('masks every string and key of a value, at any depth, leaving other values alone', () => {
    const scrub = secretScrubber(['sk-0123456789']);
    const value = { reason: 'key sk-0123456789', n: 1, ok: true, none: null, list: [{ 'Bearer sk-0123456789': 'x' }] };
    expect(scrubbedValue(value, scrub)).toEqual({
      reason: 'key ********',
      n: 1,
      ok: true,
      none: null,
      list: [{ 'Bearer ********': 'x' }],
    });
    // A secret made of digits, held as a number; a BigInt past the depth walked does not throw.
    expect(scrubbedValue({ pin: 987654321012, n: 7 }, secretScrubber(['987654321012']))).toEqual({
      pin: '********',
      n: 7,
    });
    let big: unknown = 10n ** 30n;
    for (let i = 0; i < 100; i++) big = [big];
    expect(() => scrubbedValue(big, scrub)).not.toThrow();
    let deep: unknown = 'sk-0123456789';
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(JSON.stringify(scrubbedValue(deep, scrub))).not.toContain('sk-0123456789');
  });
});
