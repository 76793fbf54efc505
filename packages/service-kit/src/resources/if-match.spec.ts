import { describe, expect, it } from '@jest/globals';
import { AppError } from '@conduit/contracts';
import { assertIfMatch } from './if-match.js';

describe('assertIfMatch', () => {
  const etag = '"abc"';

  it('passes without a header, with *, with the tag, or with a list holding it', () => {
    for (const header of [undefined, '*', '"abc"', ' "x", "abc" '])
      expect(() => assertIfMatch(header, etag)).not.toThrow();
  });

  it('refuses another tag or a weak one (strong comparison)', () => {
    for (const header of ['"abd"', 'W/"abc"', 'abc', '']) {
      try {
        assertIfMatch(header, etag);
        throw new Error(`expected ${header} to be refused`);
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe('precondition_failed');
      }
    }
  });
});
