import { decryptSecrets, encryptSecrets, maskSecrets, mergeSecrets } from '@conduit/connectors';

/**
 * Where connector configs cross the trust line: `seal` before a config is stored, `open` only to use it
 * (Test Connection), `mask` for every answer. Holds the AES-256-GCM key so no caller handles it.
 */
export class ConnectorSecrets {
  constructor(private readonly key: Buffer) {}

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
