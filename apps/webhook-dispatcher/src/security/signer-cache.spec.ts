import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SecretBox, sealWebhookSecret } from './secret-box.js';
import { SignerCache } from './signer-cache.js';
import type { WebhookSigner } from './webhook-signer.js';

describe('SignerCache', () => {
  const box = new SecretBox(randomBytes(32));
  // Now: the verifier refuses timestamps more than five minutes away.
  const at = new Date();

  /** Whether `signer` signs as the plain secret does (checked with the library's own verifier). */
  function signsWith(signer: WebhookSigner, secret: string): boolean {
    const signature = signer.sign('evt_1', at, '{}');
    const verifier = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
    try {
      verifier.verify('{}', {
        'webhook-id': 'evt_1',
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signature,
      });
      return true;
    } catch {
      return false;
    }
  }

  it('opens a sealed secret once and serves the same signer after', () => {
    let opened = 0;
    const counting = Object.assign(Object.create(box) as SecretBox, {
      open: (...args: Parameters<SecretBox['open']>) => {
        opened++;
        return box.open(...args);
      },
    });
    const cache = new SignerCache(counting);
    const sealed = sealWebhookSecret(box, 't1', 'whk_a', 'first-secret');
    const first = cache.signerOf('t1', 'whk_a', sealed);
    expect(cache.signerOf('t1', 'whk_a', sealed)).toBe(first);
    expect(opened).toBe(1);
    expect(signsWith(first, 'first-secret')).toBe(true);
  });

  it('opens the new value once the secret is rotated', () => {
    const cache = new SignerCache(box);
    const before = cache.signerOf('t1', 'whk_b', sealWebhookSecret(box, 't1', 'whk_b', 'old-secret'));
    const after = cache.signerOf('t1', 'whk_b', sealWebhookSecret(box, 't1', 'whk_b', 'new-secret'));
    expect(after).not.toBe(before);
    expect(signsWith(after, 'new-secret')).toBe(true);
    expect(signsWith(after, 'old-secret')).toBe(false);
  });

  it('refuses a value sealed for another webhook or tenant, as the box does', () => {
    const cache = new SignerCache(box);
    expect(() => cache.signerOf('t1', 'whk_c', sealWebhookSecret(box, 't1', 'whk_other', 'secret'))).toThrow(
      /could not be decrypted/,
    );
    expect(() => cache.signerOf('t2', 'whk_c', sealWebhookSecret(box, 't1', 'whk_c', 'secret'))).toThrow(
      /could not be decrypted/,
    );
  });
});
