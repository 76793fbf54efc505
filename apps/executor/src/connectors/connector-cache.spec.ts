import type { ResolvedConnector } from '@conduit/contracts';
import { ConnectorCache } from './connector-cache.js';

const sealed = (id: string, version: number, host = 'db.example'): ResolvedConnector => ({
  id,
  type: 'postgres',
  config: { host, password: 'enc:v2:00000000:sealed' },
  version,
});

describe('the connector cache', () => {
  let now = 1_000_000;
  const cache = (opts: { maxEntries?: number; ttlMs?: number } = {}) => new ConnectorCache({ ...opts, now: () => now });

  it('answers a connector held at the version asked for or a newer one, never an older one', () => {
    const c = cache();
    c.store('tnt_a', [sealed('con_1', 2)], c.generation);
    expect(c.get('tnt_a', 'con_1', 2)).toEqual(sealed('con_1', 2));
    expect(c.get('tnt_a', 'con_1', 1)).toEqual(sealed('con_1', 2));
    expect(c.get('tnt_a', 'con_1', 3)).toBeUndefined();
    // An older answer never replaces a newer one.
    c.store('tnt_a', [sealed('con_1', 1, 'old.example')], c.generation);
    expect(c.get('tnt_a', 'con_1', 2)?.config['host']).toBe('db.example');
  });

  it("never answers one tenant's connector to another, whatever the ids", () => {
    const c = cache();
    c.store('tnt_a', [sealed('con_1', 1)], c.generation);
    expect(c.get('tnt_b', 'con_1', 1)).toBeUndefined();
    // Ids that would collide if the key were a plain concatenation.
    c.store('tnt_a', [sealed('x', 1)], c.generation);
    expect(c.get('tnt_', 'ax', 1)).toBeUndefined();
    expect(c.get('tnt_a\u0000', 'x', 1)).toBeUndefined();
  });

  it('drops a connector on its update (older versions only) and on its delete', () => {
    const c = cache();
    c.store('tnt_a', [sealed('con_1', 3), sealed('con_2', 1)], c.generation);
    c.drop('tnt_a', 'con_1', 3);
    expect(c.get('tnt_a', 'con_1', 3)).toBeDefined();
    c.drop('tnt_a', 'con_1', 4);
    expect(c.get('tnt_a', 'con_1', 1)).toBeUndefined();
    c.drop('tnt_b', 'con_2', null);
    expect(c.get('tnt_a', 'con_2', 1)).toBeDefined();
    c.drop('tnt_a', 'con_2', null);
    expect(c.get('tnt_a', 'con_2', 1)).toBeUndefined();
  });

  it('does not store an answer fetched before a drop or a clear, which may predate the change', () => {
    const c = cache();
    const before = c.generation;
    c.drop('tnt_a', 'con_1', null);
    c.store('tnt_a', [sealed('con_1', 1)], before);
    expect(c.size).toBe(0);
    const beforeClear = c.generation;
    c.clear();
    c.store('tnt_a', [sealed('con_1', 1)], beforeClear);
    expect(c.size).toBe(0);
    c.store('tnt_a', [sealed('con_1', 1)], c.generation);
    expect(c.size).toBe(1);
  });

  it('does not store an answer without a version (an older catalog)', () => {
    const c = cache();
    c.store('tnt_a', [{ id: 'con_1', type: 'postgres', config: {} }], c.generation);
    expect(c.size).toBe(0);
  });

  it('forgets an entry after its TTL, and the least recently used one past the bound', () => {
    const c = cache({ ttlMs: 1000, maxEntries: 2 });
    c.store('tnt_a', [sealed('con_1', 1), sealed('con_2', 1)], c.generation);
    expect(c.get('tnt_a', 'con_1', 1)).toBeDefined();
    c.store('tnt_a', [sealed('con_3', 1)], c.generation);
    expect(c.get('tnt_a', 'con_2', 1)).toBeUndefined();
    expect(c.get('tnt_a', 'con_1', 1)).toBeDefined();
    now += 1000;
    expect(c.get('tnt_a', 'con_1', 1)).toBeUndefined();
    expect(c.get('tnt_a', 'con_3', 1)).toBeUndefined();
    expect(c.size).toBe(0);
  });
});
