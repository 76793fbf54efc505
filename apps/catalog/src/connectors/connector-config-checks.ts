/**
 * What the catalog refuses in a connector config beyond its JSON Schema, with field paths for errors[]:
 * credentials written into a URL or a plain header (issue 14, finding 9) and a move that keeps its secrets masked
 * (finding 4).
 */
import { getDriver, secretsToResend } from '@conduit/connectors';
import type { FieldError } from '@conduit/contracts';
import { isCredentialName, urlCredentialProblem } from '@conduit/secrets';

/** Every top-level string that is an absolute URL (base_url, endpoint...) and carries a credential. */
export function urlCredentialErrors(type: string, config: Record<string, unknown>): FieldError[] {
  const secretFields = getDriver(type)?.info.secret_fields ?? [];
  const where =
    secretFields.length > 0 ? `the connector's secret settings (${secretFields.join(', ')})` : 'a secret setting';
  const errors: FieldError[] = [];
  for (const [field, value] of Object.entries(config)) {
    if (typeof value !== 'string' || !value.includes('://') || !URL.canParse(value)) continue;
    const problem = urlCredentialProblem(new URL(value));
    if (problem)
      errors.push({
        path: `config.${field}`,
        code: 'credentials_in_url',
        message: `${problem}: put the credential in ${where} instead`,
      });
  }
  return errors;
}

/** Plain `headers` (stored and answered in clear) naming a credential: it belongs in the type's secret settings. */
export function headerCredentialErrors(type: string, config: Record<string, unknown>): FieldError[] {
  const headers = config['headers'];
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return [];
  const secretFields = getDriver(type)?.info.secret_fields ?? [];
  const where = secretFields.includes('auth_header_value')
    ? 'auth_type "header" with auth_header_name and auth_header_value (or bearer_token, or username and password)'
    : `the connector's secret settings (${secretFields.join(', ')})`;
  return Object.keys(headers)
    .filter(isCredentialName)
    .map((name) => ({
      path: `config.headers.${name.slice(0, 64)}`,
      code: 'credentials_in_header',
      message: `a header that carries a credential is stored and answered in clear: use ${where} instead`,
    }));
}

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
  const moved = (getDriver(type)?.info.location_fields ?? []).filter(
    (f) => JSON.stringify(incoming[f]) !== JSON.stringify(storedPlain[f]),
  );
  return fields.map((field) => ({
    path: `config.${field}`,
    code: 'secret_required',
    message: `must be sent again (not "********"): ${moved.join(', ')} changed, and a stored secret does not follow a connector to a new place`,
  }));
}
