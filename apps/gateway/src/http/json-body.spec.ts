import { infiniteNumberPaths, jsonDepth, protoKeyPath } from './json-body.js';

const parsed = (text: string) => ({ text, value: JSON.parse(text) as unknown });

describe('protoKeyPath', () => {
  it('finds a __proto__ key anywhere, spelled out or escaped, with its body path', () => {
    for (const [text, path] of [
      ['{"parameters":{"__proto__":{"admin":true}}}', 'parameters.__proto__'],
      ['{"dag":{"nodes":[{"id":"a","config":{"__proto__":1}}]}}', 'dag.nodes[0].config.__proto__'],
      ['{"\\u005f_proto__":{}}', '__proto__'],
    ] as const) {
      const { value } = parsed(text);
      expect(protoKeyPath(text, value)).toBe(path);
    }
  });

  it('passes bodies without one, and a value that only mentions it', () => {
    for (const text of [
      '{"name":"a"}',
      '{"sql":"select \'__proto__\' as x"}',
      '{"a":["__proto__"]}',
      '{"constructor":1}',
    ]) {
      expect(protoKeyPath(text, JSON.parse(text))).toBeUndefined();
    }
  });
});

describe('jsonDepth', () => {
  it('counts nesting without recursion', () => {
    expect(jsonDepth({ a: [{ b: 1 }] }, 64)).toBe(3);
    const deep = JSON.parse('['.repeat(10_000) + ']'.repeat(10_000)) as unknown;
    expect(jsonDepth(deep, 64)).toBe(65);
  });
});

describe('infiniteNumberPaths', () => {
  it.each([
    ['an exponent', '{"a":1e400}', ['a']],
    ['a negative one in a list', '{"a":{"b":[1,-1E+999]}}', ['a.b[1]']],
    ['400 digits', `[${'9'.repeat(400)}]`, ['[0]']],
    ['250 digits and a small exponent', `{"a":${'9'.repeat(250)}e99}`, ['a']],
    ['every one, in document order', '{"a":1e400,"b":[2e400,{"c":3e400}]}', ['a', 'b[0]', 'b[1].c']],
  ])('finds %s', (_what, text, paths) => {
    expect(infiniteNumberPaths(text, JSON.parse(text))).toEqual(paths);
  });

  it('answers nothing for numbers a double holds, or for texts that only look like one', () => {
    for (const text of ['{"a":1e300}', '{"a":"1e400"}', '{"a":1.7976931348623157e308}', '{"e400":1}'])
      expect(infiniteNumberPaths(text, JSON.parse(text))).toEqual([]);
  });

  it('scans a megabyte of long digit runs in linear time', () => {
    const text = `[${Array.from({ length: 3_400 }, () => '1'.repeat(300)).join(',')}]`;
    const started = performance.now();
    expect(infiniteNumberPaths(text, JSON.parse(text))).toEqual([]);
    expect(performance.now() - started).toBeLessThan(100);
  });
});
