import { jsonErrorPosition } from './json-error-position.js';

/** V8's own position, where its message has one. */
const v8Position = (text: string): number | undefined => {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    const found = /position (\d+)/.exec((err as Error).message)?.[1];
    return found === undefined ? undefined : Number(found);
  }
};

describe('jsonErrorPosition', () => {
  it.each([
    ['{"name":', 8],
    ['', 0],
    ['abc', 0],
    ['  abc', 2],
    ['[abc]', 1],
    ['{"a": tru}', 9],
    ['"abc', 4],
    ['{"a":"\u0001"}', 6],
    ['{"a":"\\x"}', 7],
    ['{"a":"\\u12G4"}', 10],
    ['[1,]', 3],
    ['-', 1],
    ['1.', 2],
    ['1e+', 3],
    ['{"a":1,"b"}', 10],
  ])('%j stops at %d', (text, position) => {
    expect(jsonErrorPosition(text)).toBe(position);
  });

  it('agrees with V8 wherever V8 names the position', () => {
    const texts = ['{"name": "a",}', '{"a":1}x', '[1,2', '{"a" 1}', '{"a": 01}', '[1 2]', '{,}', '[-]'];
    for (const text of texts) {
      expect(v8Position(text)).toEqual(expect.any(Number));
      expect(jsonErrorPosition(text)).toBe(v8Position(text));
    }
  });

  it('finds nothing in valid JSON', () => {
    for (const text of ['{}', ' [ ] ', '{"a":[1,-0.5e3,true,false,null,"\\u00e9\\n"]}', '"x"', '0'])
      expect(jsonErrorPosition(text)).toBeUndefined();
  });
});
