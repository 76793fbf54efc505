/** The http (REST API) connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { compileConfigValidator } from '../config-schema-validator.js';
import { ConnectorError } from '../connector-error.js';
import type { ConnectorTypeInfo } from '../types.js';

export type HttpAuthType = 'none' | 'header' | 'bearer' | 'basic';

export interface HttpConfig {
  /** `http(s)://host[:port][/base/path]`; request paths are relative to it. */
  base_url: string;
  auth_type: HttpAuthType;
  auth_header_name: string | undefined;
  auth_header_value: string | undefined;
  bearer_token: string | undefined;
  username: string | undefined;
  password: string | undefined;
  /** Extra (non-secret) headers sent with every request. */
  headers: Record<string, string>;
  /** What Test Connection requests with GET; default `/`. */
  health_path: string;
  /** Per request (connect to last byte); default 30000. */
  timeout_ms: number;
  /** Retries of a 429, a 5xx or a dropped connection; default 3. */
  max_retries: number;
  /** The longest wait between retries, also for a larger Retry-After; default 30000. */
  max_retry_wait_ms: number;
}

/** Headers that frame the request or address the hop, which the client sets itself: never from a config. */
const RESERVED_HEADERS = [
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
];
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');
/** An HTTP field name (RFC 9110 token), none of RESERVED_HEADERS nor a `proxy-` one (JSON Schema patterns have no flags). */
const HEADER_NAME_PATTERN = `^(?!(?:${[...RESERVED_HEADERS.map(anyCase), `${anyCase('proxy')}-.*`].join('|')})$)[!#$%&'*+.^_\`|~0-9A-Za-z-]+$`;
/** A field value: a line break or NUL would end the header and start another (or a body). */
const HEADER_VALUE_PATTERN = '^[^\\r\\n\\u0000]*$';

export const httpInfo: ConnectorTypeInfo = {
  type: 'http',
  category: 'rest_api',
  description: 'REST API over HTTP(S): read JSON records with paging, POST batches as JSON arrays.',
  roles: ['source', 'sink'],
  secret_fields: CONNECTOR_SECRET_FIELDS.http,
  location_fields: ['base_url'],
  config_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      base_url: { type: 'string', minLength: 1, maxLength: 2048, pattern: '^https?://', description: 'http(s) URL' },
      auth_type: { type: 'string', enum: ['none', 'header', 'bearer', 'basic'], default: 'none' },
      auth_header_name: {
        type: 'string',
        minLength: 1,
        maxLength: 256,
        pattern: HEADER_NAME_PATTERN,
        description: 'Header for auth_type header: an HTTP field name, not one the connector sets itself',
      },
      auth_header_value: {
        type: 'string',
        maxLength: 8192,
        pattern: HEADER_VALUE_PATTERN,
        writeOnly: true,
        'x-secret': true,
      },
      bearer_token: {
        type: 'string',
        maxLength: 8192,
        pattern: HEADER_VALUE_PATTERN,
        writeOnly: true,
        'x-secret': true,
      },
      username: { type: 'string', maxLength: 256 },
      password: { type: 'string', maxLength: 1024, writeOnly: true, 'x-secret': true },
      headers: {
        type: 'object',
        propertyNames: { maxLength: 256, pattern: HEADER_NAME_PATTERN },
        additionalProperties: { type: 'string', maxLength: 8192, pattern: HEADER_VALUE_PATTERN },
        maxProperties: 50,
      },
      health_path: { type: 'string', maxLength: 2048, default: '/' },
      timeout_ms: { type: 'integer', minimum: 100, maximum: 600000, default: 30000 },
      max_retries: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
      max_retry_wait_ms: { type: 'integer', minimum: 0, maximum: 600000, default: 30000 },
    },
    required: ['base_url'],
    additionalProperties: false,
  },
};

const validate = compileConfigValidator(httpInfo.config_schema);

const AUTH_NEEDS: Record<HttpAuthType, readonly string[]> = {
  none: [],
  header: ['auth_header_name', 'auth_header_value'],
  bearer: ['bearer_token'],
  basic: ['username', 'password'],
};

const HEADER_NAME = new RegExp(HEADER_NAME_PATTERN, 'u');
const HEADER_VALUE = new RegExp(HEADER_VALUE_PATTERN, 'u');

/** The headers' names and values as HTTP allows them, and none of the request's framing. Values are never quoted. */
function headerProblems(config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const name = (field: string, value: string) => {
    if (!HEADER_NAME.test(value)) problems.push(`${field}: not an HTTP header name, or one the connector sets itself`);
  };
  const authName = config['auth_header_name'];
  if (typeof authName === 'string') name('config.auth_header_name', authName);
  for (const field of ['auth_header_value', 'bearer_token']) {
    const value = config[field];
    if (typeof value === 'string' && !HEADER_VALUE.test(value))
      problems.push(`config.${field}: contains a line break or NUL`);
  }
  const headers = (config['headers'] as Record<string, string> | undefined) ?? {};
  for (const [key, value] of Object.entries(headers)) {
    name(`config.headers.${key}`, key);
    if (!HEADER_VALUE.test(value)) problems.push(`config.headers.${key}: contains a line break or NUL`);
  }
  return problems;
}

/** Validates and applies defaults; throws a config_error ConnectorError naming every problem. */
export function parseHttpConfig(config: Record<string, unknown>): HttpConfig {
  const problems = validate(config).map((p) => `${p.path}: ${p.message}`);
  const authType = (config['auth_type'] as HttpAuthType | undefined) ?? 'none';
  for (const field of AUTH_NEEDS[authType] ?? []) {
    if (typeof config[field] !== 'string')
      problems.push(`config.${field}: ${field} is required for auth_type ${authType}`);
  }
  if (problems.length === 0 && !URL.canParse(config['base_url'] as string))
    problems.push('config.base_url: not a valid URL');
  if (problems.length === 0) problems.push(...headerProblems(config));
  if (problems.length > 0) throw new ConnectorError(`invalid http config: ${problems.join('; ')}`, 'config_error');
  return {
    base_url: config['base_url'] as string,
    auth_type: authType,
    auth_header_name: config['auth_header_name'] as string | undefined,
    auth_header_value: config['auth_header_value'] as string | undefined,
    bearer_token: config['bearer_token'] as string | undefined,
    username: config['username'] as string | undefined,
    password: config['password'] as string | undefined,
    headers: (config['headers'] as Record<string, string> | undefined) ?? {},
    health_path: (config['health_path'] as string | undefined) ?? '/',
    timeout_ms: (config['timeout_ms'] as number | undefined) ?? 30000,
    max_retries: (config['max_retries'] as number | undefined) ?? 3,
    max_retry_wait_ms: (config['max_retry_wait_ms'] as number | undefined) ?? 30000,
  };
}

/** Every secret value of the config, to scrub from messages. */
export function httpSecrets(cfg: HttpConfig): string[] {
  const basic =
    cfg.username !== undefined && cfg.password !== undefined
      ? [Buffer.from(`${cfg.username}:${cfg.password}`).toString('base64')]
      : [];
  return [cfg.auth_header_value, cfg.bearer_token, cfg.password, ...basic].filter((s): s is string => !!s);
}

/** The headers that authenticate a request under the config's auth_type. */
export function authHeaders(cfg: HttpConfig): Record<string, string> {
  switch (cfg.auth_type) {
    case 'header':
      return { [cfg.auth_header_name as string]: cfg.auth_header_value as string };
    case 'bearer':
      return { authorization: `Bearer ${cfg.bearer_token as string}` };
    case 'basic':
      return {
        authorization: `Basic ${Buffer.from(`${cfg.username as string}:${cfg.password as string}`).toString('base64')}`,
      };
    case 'none':
      return {};
  }
}

/**
 * `path` (absolute path or relative) resolved against base_url, keeping the base URL's own path prefix. A full URL
 * must stay on the base URL's origin: the connector's credentials go with every request, and a node's `path` (which
 * anyone who may edit a pipeline sets) must not carry them to another host (issue 14, finding 4's sibling).
 */
export function resolveUrl(cfg: HttpConfig, path: string): URL {
  const base = new URL(cfg.base_url);
  if (/^https?:\/\//i.test(path)) {
    const full = new URL(path);
    // The URL's user info would go out as Basic auth, stored in clear in the pipeline (validation refuses it too).
    if (full.username !== '' || full.password !== '')
      throw new ConnectorError(
        "path must not carry credentials (user:password@): use the connector's secret settings",
        'config_error',
      );
    if (full.origin !== base.origin) {
      throw new ConnectorError(
        `path ${full.origin}/... leaves the connector's base_url (${base.origin}); give a path on it, or another connector`,
        'config_error',
      );
    }
    return full;
  }
  const prefix = base.pathname.replace(/\/+$/, '');
  const [pathPart, query] = path.split('?', 2) as [string, string | undefined];
  const url = new URL(base.origin);
  url.pathname = `${prefix}/${pathPart.replace(/^\/+/, '')}`;
  if (query !== undefined) url.search = query;
  return url;
}
