import type { FieldError } from '@conduit/contracts';
import { resolveWebhookTarget, UrlRefusedError, type UrlPolicyOptions } from '../security/url-policy.js';
import { secretProblem } from '../security/webhook-signer.js';

/**
 * The checks of a webhook's url and secret beyond their shape (which the contracts' schemas check): the network
 * policy (scheme, and every resolved address) and a `whsec_` secret that must be base64. Every fault is listed.
 */
export async function webhookInputErrors(
  input: { url?: string; secret?: string },
  policy: UrlPolicyOptions,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  if (input.url !== undefined) {
    try {
      await resolveWebhookTarget(input.url, policy);
    } catch (err) {
      if (!(err instanceof UrlRefusedError)) throw err;
      // As for connectors (docs/security.md, Network): a name that does not resolve from here is accepted and
      // checked again before every attempt, where it is a failed attempt; a name that resolves is checked now.
      if (err.code !== 'url_unresolvable') errors.push({ path: 'url', code: err.code, message: err.message });
    }
  }
  if (input.secret !== undefined) {
    // The gateway checks the length too, but the secret crossed sealed, so only here is it seen again.
    const length = [...input.secret].length;
    const problem = length < 16 || length > 256 ? 'must be 16 to 256 characters' : secretProblem(input.secret);
    // The message never quotes the secret.
    if (problem) errors.push({ path: 'secret', code: 'invalid_secret', message: problem });
  }
  return errors;
}
