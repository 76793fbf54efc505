import { nameSchema } from './common.js';

describe('names', () => {
  const refusal = (name: string) => {
    const res = nameSchema.safeParse(name);
    return res.success ? undefined : res.error.issues[0]!.message;
  };

  it.each([
    ['a right-to-left override', 'invoice\u202Egpj.exe'],
    ['a left-to-right embedding', '\u202Aprod'],
    ['a first-strong isolate', 'prod\u2068 staging\u2069'],
  ])('refuses %s, which makes a listed name read as another', (_what, name) => {
    expect(refusal(name)).toMatch(/bidirectional/);
  });

  it.each([
    ['a zero-width space', '\u200B'],
    ['zero-width joiners and a word joiner around spaces', ' \u200D\u2060 \uFEFF '],
    ['a Hangul filler', '\u3164'],
  ])('refuses a name of nothing but %s', (_what, name) => {
    expect(refusal(name)).toMatch(/visible character/);
  });

  it.each([
    ['right-to-left text', 'تقرير يومي'],
    ['marks inside right-to-left text', 'נתונים\u200F 2026'],
    ['an emoji sequence with zero-width joiners', 'team \u{1F469}\u200D\u{1F4BB}'],
    ['a zero-width space between words', 'nightly\u200Bload'],
  ])('takes %s', (_what, name) => {
    expect(refusal(name)).toBeUndefined();
  });
});
