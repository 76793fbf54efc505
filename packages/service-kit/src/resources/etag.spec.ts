import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { etagOf } from './etag.js';

describe('etagOf', () => {
  it('is the first 22 base64url characters of the SHA-256 of the parts joined by |, quoted', () => {
    const digest = createHash('sha256').update('prj_1|3|2026-01-02T03:04:05.678Z').digest('base64url');
    expect(etagOf('prj_1', 3, '2026-01-02T03:04:05.678Z')).toBe(`"${digest.slice(0, 22)}"`);
  });

  it('changes with any part', () => {
    expect(etagOf('prj_1', 3, 'a')).not.toBe(etagOf('prj_1', 4, 'a'));
  });
});
