import type { FastifyRequest } from 'fastify';
import { nulCharacterErrors, nulCharacterProblem } from './nul-characters.js';

/** The parts of a request the check reads. */
function request(parts: { params?: object; query?: object; headers?: object; body?: unknown }): FastifyRequest {
  return { params: {}, query: {}, headers: {}, ...parts } as unknown as FastifyRequest;
}

describe('nulCharacterErrors', () => {
  it('finds NUL in nested values and keys, and nothing in clean input', () => {
    expect(
      nulCharacterErrors({ a: [{ b: 'x\u0000' }], ['k\u0000']: 1 })
        .map((e) => e.path)
        .sort(),
    ).toEqual(['', 'a[0].b']);
    expect(nulCharacterErrors({ a: ['x', 1, null, { b: 'y' }] })).toEqual([]);
  });
});

describe('nulCharacterProblem', () => {
  it.each([
    ['path parameter', { params: { job_id: 'job_\u0000' } }, 'job_id'],
    ['query parameter', { query: { node_id: '\u0000' } }, 'node_id'],
    ['header', { headers: { 'idempotency-key': 'a\u0000b' } }, 'idempotency-key'],
  ])('a NUL in a %s is a 400 invalid_parameter naming it', (kind, parts, path) => {
    const problem = nulCharacterProblem(request(parts));
    expect(problem?.code).toBe('invalid_parameter');
    expect(problem?.message).toBe(`${kind} ${path}: must not contain NUL (U+0000) characters`);
    expect(problem?.errors).toEqual([{ path, code: 'invalid_characters', message: expect.any(String) }]);
  });

  it('a NUL in the body is a 422 validation_failed listing each field', () => {
    const problem = nulCharacterProblem(request({ body: { name: 'a\u0000', dag: { nodes: [{ id: '\u0000' }] } } }));
    expect(problem?.code).toBe('validation_failed');
    expect(problem?.errors?.map((e) => e.path).sort()).toEqual(['dag.nodes[0].id', 'name']);
  });

  it('a clean request, or one without a body, passes', () => {
    expect(
      nulCharacterProblem(
        request({ params: { id: 'prj_1' }, query: { limit: '5' }, headers: { accept: '*/*' }, body: { name: 'ok' } }),
      ),
    ).toBeNull();
    expect(nulCharacterProblem(request({ body: undefined }))).toBeNull();
  });
});

describe('nulCharacterErrors on inputs without NUL', () => {
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
    for (const value of clean) expect(nulCharacterErrors(value)).toEqual([]);
    const deep: unknown[] = ['\u0000'];
    for (let i = 0; i < 200; i++) deep.splice(0, 1, [deep[0]]);
    expect(nulCharacterErrors({ deep })).toHaveLength(1);
    expect(nulCharacterErrors([{ ['\u0000']: 1 }, 'a\u0000'])).toHaveLength(2);
  });
});
