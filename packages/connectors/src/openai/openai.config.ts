/** The openai (OpenAI-compatible LLM endpoint) connector's type metadata, config schema and typed config. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import type { HttpConfig } from '../http/http.config.js';
import type { ConnectorTypeInfo } from '../types.js';

export interface OpenAiConfig {
  /** Up to and including the version, e.g. `https://api.openai.com/v1`. */
  base_url: string;
  api_key: string | undefined;
  model: string;
  /** Per request; default 60000. */
  timeout_ms: number;
}

export const openAiInfo: ConnectorTypeInfo = {
  type: 'openai',
  category: 'llm',
  description: 'OpenAI-compatible chat completions endpoint, for AI decision nodes.',
  roles: ['llm'],
  secret_fields: CONNECTOR_SECRET_FIELDS.openai,
  location_fields: ['base_url'],
  config_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      base_url: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        pattern: '^https?://',
        default: 'https://api.openai.com/v1',
      },
      api_key: { type: 'string', maxLength: 4096, writeOnly: true, 'x-secret': true },
      model: { type: 'string', minLength: 1, maxLength: 256 },
      timeout_ms: { type: 'integer', minimum: 100, maximum: 600000, default: 60000 },
    },
    required: ['model'],
    additionalProperties: false,
  },
};

export function parseOpenAiConfig(config: Record<string, unknown>): OpenAiConfig {
  assertValidConfig(openAiInfo, config);
  return {
    base_url: (config['base_url'] as string | undefined) ?? 'https://api.openai.com/v1',
    api_key: config['api_key'] as string | undefined,
    model: config['model'] as string,
    timeout_ms: (config['timeout_ms'] as number | undefined) ?? 60000,
  };
}

/** The http settings the requests go through: bearer auth, the network policy, retries of 429/5xx. */
export function httpSettings(cfg: OpenAiConfig): HttpConfig {
  return {
    base_url: cfg.base_url,
    auth_type: cfg.api_key ? 'bearer' : 'none',
    auth_header_name: undefined,
    auth_header_value: undefined,
    bearer_token: cfg.api_key,
    username: undefined,
    password: undefined,
    headers: {},
    health_path: '/models',
    timeout_ms: cfg.timeout_ms,
    max_retries: 2,
    max_retry_wait_ms: 20_000,
  };
}
