import { openWebhookSecret, type SecretBox } from './secret-box.js';
import { signerFor, type WebhookSigner } from './webhook-signer.js';

const MAX_ENTRIES = 1000;

/**
 * The signers of recently used webhooks, so a burst to one webhook decrypts its secret and builds its signer once
 * rather than per attempt (together a tenth of the dispatcher's CPU per delivery). An entry holds the sealed value
 * it was opened from and is used only while the row still holds that value: a rotated secret is opened anew.
 */
export class SignerCache {
  private readonly entries = new Map<string, { sealed: string; signer: WebhookSigner }>();

  constructor(private readonly secrets: SecretBox) {}

  /** Throws SecretOpenError when the stored secret does not open for this webhook of this tenant. */
  signerOf(tenantId: string, webhookId: string, sealed: string): WebhookSigner {
    const cached = this.entries.get(webhookId);
    if (cached?.sealed === sealed) return cached.signer;
    const signer = signerFor(openWebhookSecret(this.secrets, tenantId, webhookId, sealed));
    if (!cached && this.entries.size >= MAX_ENTRIES) {
      // Maps iterate in insertion order: the first key is the longest held.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(webhookId, { sealed, signer });
    return signer;
  }
}
