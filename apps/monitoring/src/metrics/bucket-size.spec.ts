import { describe, expect, it } from '@jest/globals';
import { MAX_METRICS_WINDOW_S } from '@conduit/contracts';
import { MAX_BUCKETS, bucketSizeFor } from './bucket-size.js';

describe('bucketSizeFor', () => {
  it('sizes buckets to the window', () => {
    expect(bucketSizeFor(1)).toBe(1);
    expect(bucketSizeFor(60)).toBe(1);
    expect(bucketSizeFor(3600)).toBe(60);
    expect(bucketSizeFor(86_400)).toBe(1800);
    expect(bucketSizeFor(7 * 86_400)).toBe(10_800);
  });

  it('never makes more than MAX_BUCKETS buckets, up to the longest window', () => {
    for (const windowS of [1, 59, 61, 299, 3601, 86_399, 86_401, 30 * 86_400, MAX_METRICS_WINDOW_S]) {
      expect(Math.ceil(windowS / bucketSizeFor(windowS))).toBeLessThanOrEqual(MAX_BUCKETS);
    }
  });
});
