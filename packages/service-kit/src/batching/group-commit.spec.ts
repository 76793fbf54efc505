import { describe, expect, it } from '@jest/globals';
import { AGAIN, GroupCommit, failingAlone } from './group-commit.js';

describe('GroupCommit', () => {
  it('writes the items of one turn together, and those submitted during a write in the next batch', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const commits = new GroupCommit<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await held;
      return items.map((i) => i * 10);
    }, 3);
    const first = [1, 2].map((i) => commits.submit(i));
    await new Promise((r) => setImmediate(r));
    const later = [3, 4, 5, 6].map((i) => commits.submit(i));
    release();
    expect(await Promise.all([...first, ...later])).toEqual([10, 20, 30, 40, 50, 60]);
    expect(batches).toEqual([[1, 2], [3, 4, 5], [6]]);
  });

  it('takes an item answered AGAIN in the next batch, ahead of later ones', async () => {
    const batches: string[][] = [];
    const commits = new GroupCommit<string, string>(async (items) => {
      batches.push(items);
      return items.map((i) => (i === 'b' && batches.length === 1 ? AGAIN : i.toUpperCase()));
    }, 2);
    expect(await Promise.all(['a', 'b', 'c'].map((i) => commits.submit(i)))).toEqual(['A', 'B', 'C']);
    expect(batches).toEqual([
      ['a', 'b'],
      ['b', 'c'],
    ]);
  });
});

describe('failingAlone', () => {
  it('writes a failed batch again item by item, so that only the bad item fails', async () => {
    const calls: number[][] = [];
    const write = failingAlone(async (items: number[]) => {
      calls.push(items);
      if (items.includes(2)) throw new Error(`bad ${items.join(',')}`);
      return items.map((i) => i + 1);
    });
    const results = await write([1, 2, 3]);
    expect(results.slice(0, 1)).toEqual([2]);
    expect(results[1]).toEqual(new Error('bad 2'));
    expect(results[2]).toBe(4);
    expect(calls).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it("fails every item at once on a failure that is no item's own, writing none alone", async () => {
    const calls: number[][] = [];
    const down = new Error('store away');
    const write = failingAlone(
      async (items: number[]) => {
        calls.push(items);
        throw down;
      },
      (err) => err !== down,
    );
    expect(await write([1, 2, 3])).toEqual([down, down, down]);
    expect(calls).toEqual([[1, 2, 3]]);
  });
});
