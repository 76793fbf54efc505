import { isId } from '@conduit/contracts';
import { newId } from './new-id.js';

describe('newId', () => {
  it('makes ids that are prefixed, time-ordered and recognised', () => {
    const a = newId('project');
    const b = newId('project');
    expect(a).toMatch(/^prj_[0-9A-Z]{26}$/);
    expect(a < b).toBe(true);
    expect(isId('project', a)).toBe(true);
    expect(isId('pipeline', a)).toBe(false);
  });

  it('makes ids that stay unique and ordered across many drawn from the pooled randomness', () => {
    // More ids than one pool of random bytes serves (4096 bytes, 16 an id in a new millisecond).
    const ids = Array.from({ length: 5000 }, () => newId('run'));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // The random part is not stuck: ids of distinct milliseconds differ after the time prefix too.
    const tails = new Set(ids.map((id) => id.slice(14)));
    expect(tails.size).toBeGreaterThan(1);
  });
});
