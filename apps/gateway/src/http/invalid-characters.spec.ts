import type { FastifyRequest } from 'fastify';
import { invalidCharacterErrors, invalidCharacterProblem, loneSurrogateAt } from './invalid-characters.js';

/** The parts of a request the check reads. */
function request(parts: { params?: object; query?: object; headers?: object; body?: unknown }): FastifyRequest {
  return { params: {}, query: {}, headers: {}, ...parts } as unknown as FastifyRequest;
}

describe('invalidCharacterErrors', () => {
  it('finds NUL in nested values and keys, and nothing in clean input', () => {
    expect(
      invalidCharacterErrors({ a: [{ b: 'x\u0000' }], ['k\u0000']: 1 })
        .map((e) => e.path)
        .sort(),
    ).toEqual(['', 'a[0].b']);
    expect(invalidCharacterErrors({ a: ['x', 1, null, { b: 'y' }] })).toEqual([]);
  });
});

describe('invalidCharacterProblem', () => {
  it.each([
    ['path parameter', { params: { job_id: 'job_\u0000' } }, 'job_id'],
    ['query parameter', { query: { node_id: '\u0000' } }, 'node_id'],
    ['header', { headers: { 'idempotency-key': 'a\u0000b' } }, 'idempotency-key'],
  ])('a NUL in a %s is a 400 invalid_parameter naming it', (kind, parts, path) => {
    const problem = invalidCharacterProblem(request(parts));
    expect(problem?.code).toBe('invalid_parameter');
    expect(problem?.message).toBe(`${kind} ${path}: must not contain NUL (U+0000) characters`);
    expect(problem?.errors).toEqual([{ path, code: 'invalid_characters', message: expect.any(String) }]);
  });

  it('a NUL in the body is a 422 validation_failed listing each field', () => {
    const problem = invalidCharacterProblem(request({ body: { name: 'a\u0000', dag: { nodes: [{ id: '\u0000' }] } } }));
    expect(problem?.code).toBe('validation_failed');
    expect(problem?.errors?.map((e) => e.path).sort()).toEqual(['dag.nodes[0].id', 'name']);
  });

  it('a clean request, or one without a body, passes', () => {
    expect(
      invalidCharacterProblem(
        request({ params: { id: 'prj_1' }, query: { limit: '5' }, headers: { accept: '*/*' }, body: { name: 'ok' } }),
      ),
    ).toBeNull();
    expect(invalidCharacterProblem(request({ body: undefined }))).toBeNull();
  });
});

describe('invalidCharacterErrors on inputs without NUL', () => {
  it('finds nothing in clean input of every shape, and still everything in input with NUL', () => {
    const clean = [
      {},
      [],
      '',
      'x',
      0,
      null,
      undefined,
      { a: [[{ b: ['c'] }]], d: true },
      Object.create(null) as object,
    ];
    for (const value of clean) expect(invalidCharacterErrors(value)).toEqual([]);
    const deep: unknown[] = ['\u0000'];
    for (let i = 0; i < 200; i++) deep.splice(0, 1, [deep[0]]);
    expect(invalidCharacterErrors({ deep })).toHaveLength(1);
    expect(invalidCharacterErrors([{ ['\u0000']: 1 }, 'a\u0000'])).toHaveLength(2);
  });
});

describe('lone UTF-16 surrogates', () => {
  const message = (unit: string) => `contains an unpaired UTF-16 surrogate (\\u${unit}): not valid Unicode text`;

  it.each([
    ['a high surrogate at the end', 'a\ud800', 1],
    ['a high surrogate before another character', '\udbffx', 0],
    ['a low surrogate alone', 'x\udc00y', 1],
    ['a pair in the wrong order', '\ude00\ud83d', 0],
    ['two high surrogates', '\ud83d\ud83d\ude00', 0],
  ])('finds %s', (_label, text, at) => {
    expect(loneSurrogateAt(text)).toBe(at);
  });

  it('passes surrogate pairs (emoji, astral CJK) and text without surrogates', () => {
    for (const text of ['', 'plain', 'é€', '😀', 'a😀b😀', '𠀀\u{10ffff}']) expect(loneSurrogateAt(text)).toBe(-1);
    expect(invalidCharacterErrors({ name: '😀 rocket 🚀', ['k😀']: ['𠀀'] })).toEqual([]);
  });

  it('in a body string and in a body key: a 422 naming each', () => {
    const body = {
      name: 's',
      dag: { nodes: [{ id: 'a\ud800', type: 'transform', config: { sql: 'select 1' } }], edges: [] },
      parameters: { ['k\udc01']: 'v' },
    };
    const problem = invalidCharacterProblem(request({ body }));
    expect(problem?.code).toBe('validation_failed');
    expect(problem?.errors).toEqual(
      expect.arrayContaining([
        { path: 'dag.nodes[0].id', code: 'invalid_characters', message: message('d800') },
        { path: 'parameters', code: 'invalid_characters', message: `a key ${message('dc01')}` },
      ]),
    );
    expect(problem?.errors).toHaveLength(2);
  });

  it('in a query parameter: a 400 naming it', () => {
    const problem = invalidCharacterProblem(request({ query: { node_id: 'x\ud800' } }));
    expect(problem?.code).toBe('invalid_parameter');
    expect(problem?.message).toBe(`query parameter node_id: ${message('d800')}`);
  });

  it('a string with both a NUL and a lone surrogate is named once, for the NUL', () => {
    expect(invalidCharacterErrors({ a: '\u0000\ud800' })).toEqual([
      { path: 'a', code: 'invalid_characters', message: 'must not contain NUL (U+0000) characters' },
    ]);
  });
});
