/**
 * Webhook secrets at rest: sealed with the platform's one secrets module, bound to the webhook's tenant and id so a
 * ciphertext copied onto another webhook (or tenant) does not open. Values written before (`v1:`, `enc:v1:`, bound
 * to the webhook id only) still open, until the re-seal (webhook-reseal.ts) binds them as now.
 */
import { SecretBox, V1_BINDING, webhookSecretAad } from '@conduit/secrets';

export { SecretBox, parseSecretsKey } from '@conduit/secrets';

const WHAT = 'the webhook secret';

export function sealWebhookSecret(box: SecretBox, tenantId: string, webhookId: string, plain: string): string {
  return box.seal(plain, webhookSecretAad(tenantId, webhookId));
}

/** Throws SecretOpenError (naming no secret) when the value belongs elsewhere, its key is gone, or it was altered. */
export function openWebhookSecret(box: SecretBox, tenantId: string, webhookId: string, sealed: string): string {
  return box.open(sealed, webhookSecretAad(tenantId, webhookId), WHAT, { v1Aad: V1_BINDING.webhookSecret(webhookId) });
}

/** The value sealed as now, or undefined when it already is; throws SecretOpenError like openWebhookSecret. */
export function resealWebhookSecret(
  box: SecretBox,
  tenantId: string,
  webhookId: string,
  sealed: string,
): string | undefined {
  return box.reseal(sealed, webhookSecretAad(tenantId, webhookId), WHAT, {
    v1Aad: V1_BINDING.webhookSecret(webhookId),
  });
}
