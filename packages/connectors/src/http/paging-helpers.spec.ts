import { parseJsonPath, valueAt } from './json-path.js';
import { nextLink } from './link-header.js';
import { retryAfterMs } from './http-session.js';

describe('json path', () => {
  it('walks dotted names and indexes', () => {
    expect(parseJsonPath('$.data.items[2].x')).toEqual(['data', 'items', 2, 'x']);
    expect(valueAt({ data: { items: [1, 2] } }, 'data.items')).toEqual([1, 2]);
    expect(valueAt({ a: [{ b: 'c' }] }, 'a[0].b')).toBe('c');
    expect(valueAt([1], '')).toEqual([1]);
    expect(valueAt({ a: 1 }, 'a.b')).toBeUndefined();
    expect(() => parseJsonPath('a[x]')).toThrow(/invalid JSON path/);
  });
});

describe('Link header', () => {
  it('finds rel=next among other relations', () => {
    expect(nextLink('<https://x/a?page=1>; rel="prev", <https://x/a?page=3>; rel="next"')).toBe('https://x/a?page=3');
    expect(nextLink('</b?c=1>; rel=next')).toBe('/b?c=1');
    expect(nextLink('<https://x/a>; rel="last"')).toBeUndefined();
    expect(nextLink(undefined)).toBeUndefined();
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
