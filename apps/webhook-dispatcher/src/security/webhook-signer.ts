import { Webhook } from 'standardwebhooks';

const WHSEC_PREFIX = 'whsec_';

/**
 * The Standard Webhooks signer of a secret (api.md): the key is the base64 after a `whsec_` prefix, or else the
 * secret's UTF-8 bytes (which the library takes base64-encoded). Throws when a `whsec_` secret is not base64.
 */
export function signerFor(secret: string): Webhook {
  if (secret.startsWith(WHSEC_PREFIX)) return new Webhook(secret);
  return new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
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
export function signedHeaders(signer: Webhook, eventId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(eventId, at, body),
  };
}
