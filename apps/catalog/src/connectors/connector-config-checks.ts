/**
 * What the catalog refuses in a connector config beyond its JSON Schema, with field paths for errors[]: a move that
 * keeps its secrets masked (issue 14, finding 4). Credentials written into a URL or a plain header (finding 9) are
 * checked by contracts' connectorCredentialErrors, in the gateway first and here again.
 */
import { movedLocationFields, secretsToResend } from '@conduit/connectors';
import type { FieldError } from '@conduit/contracts';

/**
 * An update that changes where the connector points (a location field) while keeping a secret as "********"
 * would send the stored secret to the new place: each such secret must be sent again, as GitHub and Grafana ask.
 */
export function resendErrors(
  type: string,
  incoming: Record<string, unknown>,
  storedPlain: Record<string, unknown>,
): FieldError[] {
  const fields = secretsToResend(type, incoming, storedPlain);
  if (fields.length === 0) return [];
  const moved = movedLocationFields(type, incoming, storedPlain);
  return fields.map((field) => ({
    path: `config.${field}`,
    code: 'secret_required',
    message: `must be sent again (not "********"): ${moved.join(', ')} changed, and a stored secret does not follow a connector to a new place`,
  }));
}
