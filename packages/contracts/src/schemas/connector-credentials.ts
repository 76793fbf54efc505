/**
 * Credentials written where a connector config keeps them in clear: a URL (`base_url`, `endpoint`...) or a plain
 * `headers` entry (issue 14, finding 9). The gateway refuses them before the body crosses to the catalog, so such a
 * credential never travels unsealed; the catalog checks the same again for what reaches it by other paths.
 */
import type { FieldError } from '../errors.js';
import {
  credentialParamNames,
  isCredentialName,
  textUrlCredentialProblem,
  textUserInfoProblem,
} from '../url-credentials.js';
import { ANY_CONNECTOR_SECRET_FIELD, CONNECTOR_SECRET_FIELDS } from './connector-secret-fields.js';

/** Resolves a node's relative path (`/items?page=1`) to read its query. */
const RELATIVE_BASE = 'http://relative.invalid';

/** The type's secret settings, where a credential belongs (any type's when the type is not known: a PUT's body). */
function secretFieldsOf(type: string | undefined): readonly string[] {
  return type !== undefined && Object.hasOwn(CONNECTOR_SECRET_FIELDS, type)
    ? CONNECTOR_SECRET_FIELDS[type as keyof typeof CONNECTOR_SECRET_FIELDS]
    : [];
}

/**
 * Every string of the config, at any depth, that is a URL carrying a credential (base_url, endpoint, a URL in a list
 * or an object...). The secret fields are not looked at: they are sealed before the body goes on.
 */
export function urlCredentialErrors(type: string | undefined, config: Record<string, unknown>): FieldError[] {
  const secretFields = secretFieldsOf(type);
  const where =
    secretFields.length > 0
      ? `the connector's secret settings (${secretFields.join(', ')})`
      : "the connector type's secret settings (GET /v2/connector-types lists them)";
  const errors: FieldError[] = [];
  const visit = (value: unknown, path: string, depth: number): void => {
    if (typeof value === 'string') {
      const problem = textUrlCredentialProblem(value);
      if (problem)
        errors.push({
          path,
          code: 'credentials_in_url',
          message: `${problem}: put the credential in ${where} instead`,
        });
    } else if (depth < MAX_DEPTH && value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) visit(inner, `${path}.${key.slice(0, 64)}`, depth + 1);
    }
  };
  for (const [field, value] of Object.entries(config))
    if (!ANY_CONNECTOR_SECRET_FIELD.includes(field)) visit(value, `config.${field}`, 1);
  return errors.slice(0, MAX_ERRORS);
}

/** Deeper than any connector's schema goes; the body's own limits bound the rest. */
const MAX_DEPTH = 8;
/** A body full of them gets the first few. */
const MAX_ERRORS = 20;

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

/**
 * Credentials in a pipeline node's config (an http node's `path` or `table`, its `params`), which is stored in the DAG and
 * answered to any key that reads the pipeline: a URL with user info is an error (the connector would send it as Basic
 * auth, as a base_url's would be, which is refused); a query parameter that names a credential (`?access_token=`,
 * `params.api_key`) a warning, since some APIs take their key no other way.
 */
export function nodeCredentialIssues(config: Record<string, unknown>): {
  errors: FieldError[];
  warnings: FieldError[];
} {
  const errors: FieldError[] = [];
  const warnings: FieldError[] = [];
  const inQuery = (path: string, named: readonly string[]) => {
    if (named.length > 0)
      warnings.push({
        path,
        code: 'credentials_in_query',
        message: `names a credential in the query (${named.map((n) => n.slice(0, 40)).join(', ')}), which is stored and shown in clear with the pipeline: prefer the connector's secret settings`,
      });
  };
  // An http sink writes to `path`, else to `table`: either may be a URL.
  for (const field of ['path', 'table']) {
    const value = config[field];
    if (typeof value !== 'string') continue;
    const userInfo = textUserInfoProblem(value);
    if (userInfo) {
      const message = `${userInfo}: put the credential in the connector's secret settings instead`;
      errors.push({ path: `config.${field}`, code: 'credentials_in_url', message });
    } else if (value.includes('?') || value.includes('#')) {
      if (!URL.canParse(value, RELATIVE_BASE)) continue;
      inQuery(`config.${field}`, credentialParamNames(new URL(value, RELATIVE_BASE)));
    }
  }
  const params = config['params'];
  if (params !== null && typeof params === 'object' && !Array.isArray(params))
    inQuery('config.params', Object.keys(params).filter(isCredentialName));
  return { errors: errors.slice(0, MAX_ERRORS), warnings: warnings.slice(0, MAX_ERRORS) };
}
