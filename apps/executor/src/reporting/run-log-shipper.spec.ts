import { LOG_MESSAGE_MAX_BYTES } from '@conduit/contracts';
import { clampMessage } from './run-log-shipper.js';

describe('clampMessage', () => {
  it('keeps short messages and cuts long ones to the byte limit on a character boundary', () => {
    expect(clampMessage('hello')).toBe('hello');
    const long = 'é'.repeat(LOG_MESSAGE_MAX_BYTES);
    const cut = clampMessage(long);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(LOG_MESSAGE_MAX_BYTES);
    expect(cut.endsWith('é...')).toBe(true);
  });
});
