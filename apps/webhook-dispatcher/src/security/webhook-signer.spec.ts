import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { secretProblem, signerFor } from './webhook-signer.js';

describe('signerFor', () => {
  const at = new Date('2026-11-25T10:15:00.123Z');
  const body = JSON.stringify({ id: 'evt_1', type: 'job.completed', data: { note: 'unicode: é ✓' } });

  it('signs exactly as the Standard Webhooks library does, for a plain and a whsec_ secret', () => {
    const plain = 'a-plain-secret-of-some-length';
    const whsec = `whsec_${randomBytes(24).toString('base64')}`;
    expect(signerFor(plain).sign('evt_1', at, body)).toBe(
      new Webhook(Buffer.from(plain, 'utf8').toString('base64')).sign('evt_1', at, body),
    );
    expect(signerFor(whsec).sign('evt_1', at, body)).toBe(new Webhook(whsec).sign('evt_1', at, body));
  });

  it('refuses a whsec_ secret that is not base64, as the library does', () => {
    expect(secretProblem('whsec_abc')).toBe('the part after whsec_ must be base64');
    expect(secretProblem('whsec_not base64!')).toBe('the part after whsec_ must be base64');
    expect(secretProblem(`whsec_${randomBytes(24).toString('base64')}`)).toBeNull();
  });
});
