/**
 * Webhook secrets at rest: sealed with the platform's one secrets module, the webhook id bound as additional data so
 * a ciphertext copied onto another webhook does not open. Values written before (`v1:`) still open.
 */
export { SecretBox, parseSecretsKey } from '@conduit/secrets';
