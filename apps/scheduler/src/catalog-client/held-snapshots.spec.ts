import type { PipelineSnapshot } from '@conduit/contracts';
import { HeldSnapshots } from './held-snapshots.js';

function snapshotOf(id: string, version = 1, valid = true): PipelineSnapshot {
  return {
    id,
    version,
    dag: { nodes: [{ id: 'q', type: 'sql', config: { connector_id: 'con_1', sql: 'select 1' } }], edges: [] },
    valid,
    errors: [],
    connectors: [{ id: 'con_1', version: 3 }],
  };
}

describe('HeldSnapshots', () => {
  it('answers a snapshot only under the generation it was stored with, and forgets it when the generation moved', () => {
    const held = new HeldSnapshots({ ttlMs: 30_000 });
    held.store('ten_a', 'pln_1', '100', snapshotOf('pln_1'));
    expect(held.get('ten_a', 'pln_1', '100')).toMatchObject({ id: 'pln_1', version: 1 });
    expect(held.get('ten_a', 'pln_1', '101')).toBeUndefined();
    // Gone, not only hidden: the old generation no longer finds it either.
    expect(held.get('ten_a', 'pln_1', '100')).toBeUndefined();
    expect(held.size).toBe(0);
  });

  it('keeps tenants apart, even where ids would join into the same text', () => {
    const held = new HeldSnapshots({ ttlMs: 30_000 });
    held.store('ten_a', 'pln_1', '7', snapshotOf('pln_1'));
    expect(held.get('ten_b', 'pln_1', '7')).toBeUndefined();
    held.store('a/b', 'c', '7', snapshotOf('c'));
    expect(held.get('a', 'b/c', '7')).toBeUndefined();
  });

  it('holds no invalid snapshot', () => {
    const held = new HeldSnapshots({ ttlMs: 30_000 });
    held.store('ten_a', 'pln_1', '1', snapshotOf('pln_1', 1, false));
    expect(held.get('ten_a', 'pln_1', '1')).toBeUndefined();
  });

  it('uses an entry for its TTL at most, whatever the generation says', () => {
    let now = 0;
    const held = new HeldSnapshots({ ttlMs: 1000, now: () => now });
    held.store('ten_a', 'pln_1', '1', snapshotOf('pln_1'));
    now = 999;
    expect(held.get('ten_a', 'pln_1', '1')).toBeDefined();
    now = 1000;
    expect(held.get('ten_a', 'pln_1', '1')).toBeUndefined();
  });

  it('drops the least recently used beyond its entries or its bytes of DAG', () => {
    const held = new HeldSnapshots({ maxEntries: 2, ttlMs: 30_000 });
    held.store('t', 'p1', '1', snapshotOf('p1'));
    held.store('t', 'p2', '1', snapshotOf('p2'));
    expect(held.get('t', 'p1', '1')).toBeDefined();
    held.store('t', 'p3', '1', snapshotOf('p3'));
    expect([held.get('t', 'p1', '1'), held.get('t', 'p2', '1'), held.get('t', 'p3', '1')].map(Boolean)).toEqual([
      true,
      false,
      true,
    ]);

    const one = JSON.stringify(snapshotOf('x')).length * 2;
    const bounded = new HeldSnapshots({ maxBytes: one * 2, ttlMs: 30_000 });
    for (const id of ['a', 'b', 'c']) bounded.store('t', id, '1', snapshotOf(id));
    expect(bounded.size).toBe(2);
    expect(bounded.get('t', 'a', '1')).toBeUndefined();
    // Stored again under a new generation, an entry's bytes are counted once.
    for (let i = 0; i < 5; i += 1) bounded.store('t', 'b', String(i), snapshotOf('b'));
    expect(bounded.size).toBe(2);
    const tooSmall = new HeldSnapshots({ maxBytes: one - 1, ttlMs: 30_000 });
    tooSmall.store('t', 'a', '1', snapshotOf('a'));
    expect(tooSmall.size).toBe(0);
  });

  it('answers a copy of its own at every use: what one trigger does to it, the next does not see', () => {
    const held = new HeldSnapshots({ ttlMs: 30_000 });
    held.store('t', 'p', '1', snapshotOf('p'));
    const first = held.get('t', 'p', '1')!;
    (first.dag['nodes'] as unknown[]).push({ id: 'extra' });
    expect((held.get('t', 'p', '1')!.dag['nodes'] as unknown[]).length).toBe(1);
  });

  it('counts what it holds by its text, so a DAG that weighs more parsed than written costs its text', () => {
    const text = JSON.stringify(snapshotOf('x')).length * 2;
    const held = new HeldSnapshots({ maxBytes: text * 2, ttlMs: 30_000 });
    for (const id of ['a', 'b', 'c']) held.store('t', id, '1', { ...snapshotOf('x'), id });
    expect(held.size).toBe(2);
  });
});
