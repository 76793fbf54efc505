import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const WHSEC_PREFIX = 'whsec_';

/**
 * Signs attempts as Standard Webhooks does: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. The HMAC is Node's
 * native one: the library's pure-JS SHA-256 cost more CPU per delivery than the rest of the signing path.
 */
export class WebhookSigner {
  constructor(private readonly key: Buffer) {}

  sign(msgId: string, at: Date, body: string): string {
    const mac = createHmac('sha256', this.key)
      .update(`${msgId}.${Math.floor(at.getTime() / 1000)}.${body}`)
      .digest('base64');
    return `v1,${mac}`;
  }
}

/**
 * The Standard Webhooks signer of a secret (api.md): the key is the base64 after a `whsec_` prefix, or else the
 * secret's UTF-8 bytes. Throws when a `whsec_` secret is not base64 (the library's own parser decides, so a secret
 * it refuses is refused here too).
 */
export function signerFor(secret: string): WebhookSigner {
  if (secret.startsWith(WHSEC_PREFIX)) {
    new Webhook(secret);
    return new WebhookSigner(Buffer.from(secret.slice(WHSEC_PREFIX.length), 'base64'));
  }
  if (secret.length === 0) throw new Error("Secret can't be empty.");
  return new WebhookSigner(Buffer.from(secret, 'utf8'));
}

/** Why the secret cannot sign, or null when it can. */
export function secretProblem(secret: string): string | null {
  if (!secret.startsWith(WHSEC_PREFIX)) return null;
  const body = secret.slice(WHSEC_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return 'the part after whsec_ must be base64';
  try {
    signerFor(secret);
    return null;
  } catch {
    return 'the part after whsec_ must be base64';
  }
}

/** The three headers of a signed attempt; the timestamp is the attempt's, the id the event's (the same on every retry). */
export function signedHeaders(signer: WebhookSigner, eventId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(eventId, at, body),
  };
}
