import { describe, expect, it } from '@jest/globals';
import { gapFreePrefix, seqOf } from './run-log-seq.js';

const line = (attempt: number, n: number) => ({ seq: seqOf(attempt, n), n });

describe('seqOf', () => {
  it('orders by attempt, then by line within the attempt, from 1', () => {
    expect(seqOf(1, 0)).toBe(1);
    expect(seqOf(1, 41)).toBe(42);
    expect(seqOf(2, 0)).toBe(1_000_000_001);
    expect(seqOf(2, 0)).toBeGreaterThan(seqOf(1, 999_999));
  });
});

describe('gapFreePrefix', () => {
  it('takes consecutive lines and the start of a later attempt', () => {
    const lines = [line(1, 0), line(1, 1), line(2, 0), line(2, 1)];
    expect(gapFreePrefix(lines, 0)).toEqual(lines);
  });

  it('stops at a hole inside an attempt', () => {
    expect(gapFreePrefix([line(1, 3), line(1, 5)], seqOf(1, 2))).toEqual([line(1, 3)]);
    expect(gapFreePrefix([line(1, 2)], 0)).toEqual([]);
  });
});
