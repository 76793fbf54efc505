import { createHash } from 'node:crypto';
import { displayPrefixOf, generateApiKey, hashApiKey, isPlausibleApiKey } from './api-key-secret.js';

describe('API key secrets', () => {
  it('generates distinct cnd_ keys of 43 base62 characters', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const key of keys) expect(key).toMatch(/^cnd_[0-9A-Za-z]{43}$/);
    expect(new Set(keys).size).toBe(keys.length);
    // Every base62 character shows up: the alphabet mapping is not skewed to a subset.
    expect(new Set(keys.join('').slice(0, 8000).replace(/cnd_/g, '')).size).toBe(62);
  });

  it('hashes with sha256 hex and shows the 8 characters after cnd_', () => {
    expect(hashApiKey('cnd_abc')).toBe(createHash('sha256').update('cnd_abc').digest('hex'));
    expect(displayPrefixOf('cnd_ABCDEFGHxyz')).toBe('ABCDEFGH');
    expect(displayPrefixOf('my-bootstrap-key-of-24-chars')).toBe('my-boots');
  });

  it('screens header values before any lookup', () => {
    expect(isPlausibleApiKey(generateApiKey())).toBe(true);
    expect(isPlausibleApiKey('short')).toBe(false);
    expect(isPlausibleApiKey(`cnd_${'a'.repeat(30)} b`)).toBe(false);
    expect(isPlausibleApiKey('x'.repeat(257))).toBe(false);
  });
});
