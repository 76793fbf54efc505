import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('gives the same text for the same value whatever the order of fields, at every depth', () => {
    const a = { name: 'p', dag: { nodes: [{ id: 'a', type: 'sql' }], edges: [] }, description: null };
    const b = { description: null, dag: { edges: [], nodes: [{ type: 'sql', id: 'a' }] }, name: 'p' };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
  });

  it('tells apart values that differ, including the order of array items', () => {
    expect(canonicalJson({ events: ['a', 'b'] })).not.toBe(canonicalJson({ events: ['b', 'a'] }));
    expect(canonicalJson({ n: 1 })).not.toBe(canonicalJson({ n: '1' }));
    expect(canonicalJson(null)).toBe('null');
  });
});
