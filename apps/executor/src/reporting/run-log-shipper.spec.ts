import { LOG_MESSAGE_MAX_BYTES } from '@conduit/contracts';
import { clampMessage } from './run-log-shipper.js';

describe('clampMessage', () => {
  it('keeps short messages and cuts long ones to the byte limit on a character boundary', () => {
    expect(clampMessage('hello')).toBe('hello');
    const long = 'é'.repeat(LOG_MESSAGE_MAX_BYTES);
    const cut = clampMessage(long);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(LOG_MESSAGE_MAX_BYTES);
    expect(cut.endsWith('é...')).toBe(true);
    // Characters of four bytes (two UTF-16 units): never half of one.
    const wide = clampMessage('😀'.repeat(LOG_MESSAGE_MAX_BYTES));
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(LOG_MESSAGE_MAX_BYTES);
    expect(wide).toMatch(/^(😀)+\.\.\.$/u);
    expect(clampMessage('a'.repeat(10 * LOG_MESSAGE_MAX_BYTES))).toBe(`${'a'.repeat(LOG_MESSAGE_MAX_BYTES - 3)}...`);
  });
});
