import { checkAnswer, firstJsonObject } from './answer-contract.js';

const choices = ['urgent', 'routine'];

describe('firstJsonObject', () => {
  it('finds the object in fences and prose, braces inside strings included', () => {
    expect(firstJsonObject('```json\n{"a": "x}y", "b": {"c": 1}}\n```')).toBe('{"a": "x}y", "b": {"c": 1}}');
    expect(firstJsonObject('use {braces} wisely: {"choice": "urgent"}')).toBe('{"choice": "urgent"}');
    expect(firstJsonObject('{"a": "\\"}"}')).toBe('{"a": "\\"}"}');
    expect(firstJsonObject('no json here')).toBeUndefined();
    expect(firstJsonObject('{"unterminated": 1')).toBeUndefined();
  });
});

describe('checkAnswer', () => {
  it('accepts a full answer, matching the choice regardless of case', () => {
    expect(checkAnswer('{"choice":"Urgent ","reason":"r","confidence":1}', choices)).toEqual({
      ok: true,
      answer: { choice: 'urgent', reason: 'r', confidence: 1 },
    });
  });

  it('names what is unusable', () => {
    expect(checkAnswer('urgent', choices)).toEqual({ ok: false, problem: 'it is not a JSON object' });
    expect(checkAnswer('{"reason":"r","confidence":0.5}', choices)).toEqual({
      ok: false,
      problem: '"choice" is missing',
    });
    expect(checkAnswer('{"choice":"later","reason":"r","confidence":0.5}', choices)).toEqual({
      ok: false,
      problem: '"choice" "later" is not one of ["urgent","routine"]',
    });
    expect(checkAnswer('{"choice":"urgent","confidence":0.5}', choices)).toEqual({
      ok: false,
      problem: '"reason" is missing',
    });
    expect(checkAnswer('{"choice":"urgent","reason":"r","confidence":"high"}', choices)).toMatchObject({ ok: false });
    expect(checkAnswer('{"choice":"urgent","reason":"r","confidence":1.2}', choices)).toMatchObject({ ok: false });
  });
});
