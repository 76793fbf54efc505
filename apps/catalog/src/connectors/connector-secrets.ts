import { ANY_CONNECTOR_SECRET_FIELD, SECRET_MASK } from '@conduit/contracts';
import { decryptSecrets, encryptSecrets, maskSecrets, mergeSecrets } from '@conduit/connectors';
import { SecretBox, openFieldsFromTransit } from '@conduit/secrets';

/**
 * Where connector configs cross the trust line: `fromTransit` opens what the gateway sealed for this tenant,
 * `seal` before a config is stored, `open` only to use it (Test Connection), `mask` for every answer.
 * Holds the AES-256-GCM key so no caller handles it.
 */
export class ConnectorSecrets {
  private readonly box: SecretBox;

  constructor(private readonly key: Buffer) {
    this.box = new SecretBox(key);
  }

  /** A create or update body's config, its secrets sealed by the gateway for this tenant, as plain values. */
  fromTransit(tenantId: string, config: Record<string, unknown>): Record<string, unknown> {
    return openFieldsFromTransit(this.box, config, ANY_CONNECTOR_SECRET_FIELD, tenantId, 'connector.config', SECRET_MASK);
  }

  /** The config as stored: secret fields encrypted. */
  seal(type: string, plain: Record<string, unknown>): Record<string, unknown> {
    return encryptSecrets(type, plain, this.key);
  }

  /** The config with secrets in clear, to connect with; never answer or log it. */
  open(type: string, stored: Record<string, unknown>): Record<string, unknown> {
    return decryptSecrets(type, stored, this.key);
  }

  /** The config as answered: every secret field is "********". */
  mask(type: string, stored: Record<string, unknown>): Record<string, unknown> {
    return maskSecrets(type, stored);
  }

  /** The plain config an update asks for: a secret sent as "********" keeps the stored value. */
  merge(type: string, incoming: Record<string, unknown>, stored: Record<string, unknown>): Record<string, unknown> {
    return mergeSecrets(type, incoming, this.open(type, stored));
  }
}
