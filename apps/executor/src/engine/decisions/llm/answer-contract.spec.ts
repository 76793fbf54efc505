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
  });

  it('takes a choice without a reason or a usable confidence (api.md re-asks only for the choice)', () => {
    expect(checkAnswer('{"choice":"urgent","confidence":0.5}', choices)).toEqual({
      ok: true,
      answer: { choice: 'urgent', reason: '', confidence: 0.5 },
    });
    for (const confidence of ['', ',"confidence":"high"', ',"confidence":1.2', ',"confidence":null'])
      expect(checkAnswer(`{"choice":"routine","reason":"r"${confidence}}`, choices)).toEqual({
        ok: true,
        answer: { choice: 'routine', reason: 'r', confidence: null },
      });
  });

  it('needs a confidence from 0 to 1 where min_confidence is set', () => {
    for (const confidence of ['', ',"confidence":"high"', ',"confidence":1.2'])
      expect(checkAnswer(`{"choice":"urgent","reason":"r"${confidence}}`, choices, true)).toEqual({
        ok: false,
        problem: '"confidence" must be a number from 0 to 1',
      });
    expect(checkAnswer('{"choice":"urgent","reason":"r","confidence":0.25}', choices, true)).toMatchObject({
      ok: true,
      answer: { confidence: 0.25 },
    });
  });
});
