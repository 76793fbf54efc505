/**
 * Secrets in a request body are sealed here, after validation and before the body crosses Redis to the service
 * that owns them (issue 14, finding 2): nothing on a stream, nor in a service's logs, carries one in clear.
 * Each is bound to the calling tenant and to its field (see @conduit/secrets transit).
 */
import {
  ANY_CONNECTOR_SECRET_FIELD,
  SECRET_MASK,
  connectorCredentialErrors,
  validationFailed,
  type FieldError,
} from '@conduit/contracts';
import { type SecretBox, sealFieldsForTransit } from '@conduit/secrets';

/** Turns a validated body into the one sent to the owning service. */
export type BodySealer = (body: unknown, tenantId: string) => unknown;

/**
 * A connector body: every config field that is a secret in some type (a PUT need not name its type) is sealed;
 * "********" (keep the stored value) is no secret and stays. A secret must be a string, and a URL or a plain header
 * must carry none (credentials_in_url, credentials_in_header): either would cross in clear, so it is refused here.
 */
export function connectorConfigSealer(box: SecretBox): BodySealer {
  return (body, tenantId) => {
    const b = body as { type?: string; config: Record<string, unknown> };
    const errors: FieldError[] = ANY_CONNECTOR_SECRET_FIELD.filter(
      (f) => b.config[f] != null && typeof b.config[f] !== 'string',
    ).map((f) => ({ path: `config.${f}`, code: 'invalid_type', message: 'a secret must be a string' }));
    // A credential in a URL or a plain header is no secret field, so it would cross in clear: refused here.
    errors.push(...connectorCredentialErrors(b.type, b.config));
    if (errors.length > 0) throw validationFailed(errors);
    return {
      ...b,
      config: sealFieldsForTransit(
        box,
        b.config,
        ANY_CONNECTOR_SECRET_FIELD,
        tenantId,
        'connector.config',
        SECRET_MASK,
      ),
    };
  };
}

/** A webhook body: its signing secret, when sent. */
export function webhookSecretSealer(box: SecretBox): BodySealer {
  return (body, tenantId) =>
    sealFieldsForTransit(box, body as Record<string, unknown>, ['secret'], tenantId, 'webhook');
}
