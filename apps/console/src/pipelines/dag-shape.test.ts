import { describe, expect, it } from 'vitest';
import { readDraft } from './dag-shape.js';

describe('readDraft', () => {
  it('reads a DAG of the right shape', () => {
    const text = JSON.stringify({ nodes: [{ id: 'a', type: 'source', config: {} }], edges: [] });
    expect(readDraft(text)).toMatchObject({ ok: true, dag: { nodes: [{ id: 'a' }] } });
  });

  it('names every part of the wrong shape, as the API would refuse it', () => {
    const text = JSON.stringify({ nodes: [{ id: 1, type: 'source' }], edges: [{ from: 'a' }] });
    expect(readDraft(text)).toEqual({
      ok: false,
      problems: [
        'nodes[0] needs a string "id".',
        'nodes[0] needs an object "config".',
        'edges[0] needs a string "from" and "to".',
      ],
    });
    expect(readDraft('{"nodes": [')).toMatchObject({ ok: false, problems: [expect.stringMatching(/^Not valid JSON/)] });
  });
});
