import { ANY_CONNECTOR_SECRET_FIELD, SECRET_MASK } from '@conduit/contracts';
import {
  decryptReadableSecrets,
  decryptSecrets,
  encryptSecrets,
  maskSecrets,
  mergeSecrets,
  resealSecrets,
  type SecretOwner,
} from '@conduit/connectors';
import { SecretBox, openFieldsFromTransit, type SecretKeys } from '@conduit/secrets';

export type { SecretOwner };

/**
 * Where connector configs cross the trust line: `fromTransit` opens what the gateway sealed for this tenant,
 * `seal` before a config is stored (bound to its tenant, connector and field), `open` only to use it (Test
 * Connection), `mask` for every answer. Holds the keys so no caller handles them.
 */
export class ConnectorSecrets {
  private readonly box: SecretBox;

  /** The current key seals; previous keys (a rotation under way) only open. */
  constructor(keys: Buffer | SecretKeys) {
    this.box = new SecretBox(keys);
  }

  /** The id of the key every value is sealed under now. */
  get currentKeyId(): string {
    return this.box.currentKeyId;
  }

  /** A create or update body's config, its secrets sealed by the gateway for this tenant, as plain values. */
  fromTransit(tenantId: string, config: Record<string, unknown>): Record<string, unknown> {
    return openFieldsFromTransit(
      this.box,
      config,
      ANY_CONNECTOR_SECRET_FIELD,
      tenantId,
      'connector.config',
      SECRET_MASK,
    );
  }

  /** The config as stored: secret fields encrypted for this connector. */
  seal(type: string, plain: Record<string, unknown>, owner: SecretOwner): Record<string, unknown> {
    return encryptSecrets(type, plain, this.box, owner);
  }

  /** The config with secrets in clear, to connect with; never answer or log it. Throws SecretOpenError. */
  open(type: string, stored: Record<string, unknown>, owner: SecretOwner): Record<string, unknown> {
    return decryptSecrets(type, stored, this.box, owner);
  }

  /** Like open(), with the secrets that do not open left out and named. */
  openReadable(
    type: string,
    stored: Record<string, unknown>,
    owner: SecretOwner,
  ): { config: Record<string, unknown>; unreadable: string[] } {
    return decryptReadableSecrets(type, stored, this.box, owner);
  }

  /** The stored config with every secret not sealed as now (v1, a previous key) sealed again; see resealSecrets. */
  reseal(type: string, stored: Record<string, unknown>, owner: SecretOwner): ReturnType<typeof resealSecrets> {
    return resealSecrets(type, stored, this.box, owner);
  }

  /** The config as answered: every secret field is "********". */
  mask(type: string, stored: Record<string, unknown>): Record<string, unknown> {
    return maskSecrets(type, stored);
  }

  /** The plain config an update asks for: a secret sent as "********" keeps the stored (opened) value. */
  merge(
    type: string,
    incoming: Record<string, unknown>,
    storedPlain: Record<string, unknown>,
  ): Record<string, unknown> {
    return mergeSecrets(type, incoming, storedPlain);
  }
}
