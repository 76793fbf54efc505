import { jsonDepth, protoKeyPath } from './json-body.js';

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
