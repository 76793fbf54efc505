import { describe, expect, it } from '@jest/globals';
import { parseDuration, parseDurationList } from './duration.js';

describe('durations', () => {
  it('reads each unit', () => {
    expect(['200ms', '5s', '5m', '2h', '5d'].map(parseDuration)).toEqual([200, 5000, 300_000, 7_200_000, 432_000_000]);
  });

  it('refuses anything else', () => {
    for (const bad of ['', '5', '5 s', '-5s', '1.5h', '5w']) expect(parseDuration(bad)).toBeUndefined();
    expect(parseDurationList('5s,oops')).toBeUndefined();
    expect(parseDurationList('200ms, 400ms,800ms')).toEqual([200, 400, 800]);
  });
});
