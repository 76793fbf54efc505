/**
 * Credentials written where a connector config keeps them in clear: a URL (`base_url`, `endpoint`...) or a plain
 * `headers` entry (issue 14, finding 9). The gateway refuses them before the body crosses to the catalog, so such a
 * credential never travels unsealed; the catalog checks the same again for what reaches it by other paths.
 */
import type { FieldError } from '../errors.js';
import { isCredentialName, urlCredentialProblem } from '../url-credentials.js';
import { CONNECTOR_SECRET_FIELDS } from './connector-secret-fields.js';

/** The type's secret settings, where a credential belongs (any type's when the type is not known: a PUT's body). */
function secretFieldsOf(type: string | undefined): readonly string[] {
  return type !== undefined && Object.hasOwn(CONNECTOR_SECRET_FIELDS, type)
    ? CONNECTOR_SECRET_FIELDS[type as keyof typeof CONNECTOR_SECRET_FIELDS]
    : [];
}

/** Every top-level string that is an absolute URL (base_url, endpoint...) and carries a credential. */
export function urlCredentialErrors(type: string | undefined, config: Record<string, unknown>): FieldError[] {
  const secretFields = secretFieldsOf(type);
  const where =
    secretFields.length > 0
      ? `the connector's secret settings (${secretFields.join(', ')})`
      : "the connector type's secret settings (GET /v2/connector-types lists them)";
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
export function headerCredentialErrors(type: string | undefined, config: Record<string, unknown>): FieldError[] {
  const headers = config['headers'];
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return [];
  const secretFields = secretFieldsOf(type ?? 'http');
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

/** Both checks, in the order the catalog lists them. */
export function connectorCredentialErrors(type: string | undefined, config: Record<string, unknown>): FieldError[] {
  return [...urlCredentialErrors(type, config), ...headerCredentialErrors(type, config)];
}
