import { describe, expect, it } from '@jest/globals';
import { redactedUrl, startupFailureLine } from './startup-error.js';

describe('redactedUrl', () => {
  it('keeps the user, host, port and database, never the password', () => {
    expect(redactedUrl('postgres://app:s3cret@db.internal:5433/conduit')).toBe(
      'postgres://app@db.internal:5433/conduit',
    );
    expect(redactedUrl('redis://:s3cret@cache:6380')).toBe('redis://cache:6380');
    expect(redactedUrl('rediss://default:pw@cache:6380/2')).toBe('rediss://default@cache:6380/2');
    expect(redactedUrl('not a url')).toBe('(an unparsable URL)');
  });
});

describe('startupFailureLine', () => {
  it('is one line whatever the message', () => {
    expect(startupFailureLine('catalog', new Error('first\n  second\n'))).toBe(
      'catalog: failed to start: first second',
    );
  });
});
