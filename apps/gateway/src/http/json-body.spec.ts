import { nestsDeeperThan, valueFaults } from './json-body.js';

const protoKeyPath = (text: string, value: unknown) => valueFaults(text, value).protoKey;
const infiniteNumberPaths = (text: string, value: unknown) => valueFaults(text, value).infinite;

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

describe('nestsDeeperThan', () => {
  it('reads the nesting from the text, brackets in strings and escaped quotes aside', () => {
    expect(nestsDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":1}]}', 2)).toBe(true);
    expect(nestsDeeperThan('{"a":"[[[[\\"[[[["}', 1)).toBe(false);
    expect(nestsDeeperThan('['.repeat(65) + ']'.repeat(65), 64)).toBe(true);
    expect(nestsDeeperThan('['.repeat(64) + ']'.repeat(64), 64)).toBe(false);
  });

  it('scans a million brackets in linear time, without parsing them', () => {
    const started = performance.now();
    expect(nestsDeeperThan('['.repeat(1_000_000), 64)).toBe(true);
    expect(nestsDeeperThan(`[${'[],'.repeat(300_000)}1]`, 64)).toBe(false);
    // ~15 ms here; the bound is for a scan that is not linear (hours), not a benchmark, and leaves a busy CI room.
    expect(performance.now() - started).toBeLessThan(1_000);
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
    // ~5 ms here, a regex that backtracks over each run (/\d{301}/) 440-740 ms: the bound tells them apart on a quiet
    // machine and leaves a busy CI room (a bound of 100 ms was seen missed there by the walk below).
    expect(performance.now() - started).toBeLessThan(300);
  });

  it('walks a megabyte body of half a million values once', () => {
    // The shape an attacker sent before authenticating: four walks with a path string per value took 2.5 s. Counted,
    // not timed: every value is read once (a CI busy with other suites once took 339 ms over a walk of ~15 ms).
    const text = `{"\\u0061":${'['.repeat(60)}1e5,${Array.from({ length: 480_000 }, () => '0').join(',')}${']'.repeat(60)}}`;
    let reads = 0;
    const counted = (v: unknown): unknown =>
      v !== null && typeof v === 'object'
        ? new Proxy(v, {
            get(target, key, receiver) {
              const got: unknown = Reflect.get(target, key, receiver);
              if (key === 'length') return got;
              reads++;
              return counted(got);
            },
          })
        : v;
    expect(valueFaults(text, counted(JSON.parse(text)))).toEqual({ infinite: [] });
    // The key "a", 59 arrays of one array each, and the innermost one's 480,001 numbers.
    expect(reads).toBe(1 + 59 + 480_001);
  });
});
