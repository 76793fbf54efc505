import { fitPage } from './page-bytes.js';

describe('fitPage', () => {
  const rows = (...bytes: number[]) => bytes.map((b, i) => ({ id: `r${i}`, bytes: String(b) }));

  it('takes `limit` rows at most, saying more follow when a row past them was read', () => {
    expect(fitPage(rows(1, 1, 1), 2, 100)).toEqual({ ids: ['r0', 'r1'], more: true });
    expect(fitPage(rows(1, 1), 2, 100)).toEqual({ ids: ['r0', 'r1'], more: false });
  });

  it('stops before the row that would pass the bytes, the first row whatever its size', () => {
    expect(fitPage(rows(60, 30, 20, 1), 3, 100)).toEqual({ ids: ['r0', 'r1'], more: true });
    expect(fitPage(rows(500, 1), 5, 100)).toEqual({ ids: ['r0'], more: true });
    expect(fitPage([{ id: 'n', bytes: null }], 5, 100)).toEqual({ ids: ['n'], more: false });
    expect(fitPage([], 5, 100)).toEqual({ ids: [], more: false });
  });
});
