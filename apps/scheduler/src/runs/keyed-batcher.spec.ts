import { KeyedBatcher } from './keyed-batcher.js';

interface Item {
  key: string;
  n: number;
}

describe('KeyedBatcher', () => {
  it('applies concurrent items of one key as one group, in order, and each caller gets its own result', async () => {
    const groups: number[][] = [];
    const batcher = new KeyedBatcher<Item, string>(
      (item) => item.key,
      async (items) => {
        groups.push(items.map((i) => i.n));
        return items.map((i) => `done ${i.n}`);
      },
    );
    const results = await Promise.all([1, 2, 3].map((n) => batcher.submit({ key: 'a', n })));
    expect(results).toEqual(['done 1', 'done 2', 'done 3']);
    expect(groups).toEqual([[1, 2, 3]]);
  });

  it('never applies two groups of one key at once; what arrives meanwhile forms the next group', async () => {
    const groups: string[][] = [];
    let active = 0;
    let maxActive = 0;
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const batcher = new KeyedBatcher<Item, number>(
      (item) => item.key,
      async (items) => {
        active++;
        maxActive = Math.max(maxActive, active);
        groups.push(items.map((i) => `${i.key}${i.n}`));
        if (groups.length === 1) await firstHeld;
        active--;
        return items.map((i) => i.n);
      },
    );
    const first = batcher.submit({ key: 'a', n: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [batcher.submit({ key: 'a', n: 2 }), batcher.submit({ key: 'a', n: 3 })];
    releaseFirst();
    expect(await Promise.all([first, ...later])).toEqual([1, 2, 3]);
    expect(groups).toEqual([['a1'], ['a2', 'a3']]);
    expect(maxActive).toBe(1);
  });

  it('keeps keys apart and retries a failed group item by item, so only the bad item fails', async () => {
    const groups: string[][] = [];
    const batcher = new KeyedBatcher<Item, number>(
      (item) => item.key,
      async (items) => {
        groups.push(items.map((i) => `${i.key}${i.n}`));
        if (items.some((i) => i.n === 2)) throw new Error('bad item');
        return items.map((i) => i.n * 10);
      },
    );
    const settled = await Promise.allSettled([
      batcher.submit({ key: 'a', n: 1 }),
      batcher.submit({ key: 'b', n: 5 }),
      batcher.submit({ key: 'a', n: 2 }),
      batcher.submit({ key: 'a', n: 3 }),
    ]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      10,
      50,
      'bad item',
      30,
    ]);
    expect(groups.filter((g) => g[0]!.startsWith('a'))).toEqual([['a1', 'a2', 'a3'], ['a1'], ['a2'], ['a3']]);
    expect(groups.filter((g) => g[0]!.startsWith('b'))).toEqual([['b5']]);
  });
});
