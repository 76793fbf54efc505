/**
 * The config schema properties network connectors share (where a server is, how to sign in to it, how long to wait),
 * written once so every type describes and bounds them alike. Each call returns a fresh object: a schema is data
 * served by the API and compiled by the validator, and none of them may share a mutable part with another.
 */
import type { JsonSchema } from './types.js';

const host = (): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: 'Host name or IP address',
});

const port = (defaultPort: number): JsonSchema => ({
  type: 'integer',
  minimum: 1,
  maximum: 65535,
  default: defaultPort,
});

/** A secret: write-only in the API, masked in answers (`x-secret`). */
const password = (): JsonSchema => ({ type: 'string', maxLength: 1024, writeOnly: true, 'x-secret': true });

/** A broker's or server's user name. */
const userName = (maxLength = 255): JsonSchema => ({ type: 'string', minLength: 1, maxLength });

/** TLS on or off, for protocols whose TLS is a switch (brokers, Redis). */
const tls = (): JsonSchema => ({ type: 'boolean', default: false });

/** libpq's and MySQL's spelling of TLS: off, encrypted, or encrypted to a verified host name. */
const sslMode = (): JsonSchema => ({
  type: 'string',
  enum: ['disable', 'require', 'verify-full'],
  default: 'disable',
});

/** The limit on establishing a connection, in ms; with no `defaultMs`, none by default. */
const connectTimeout = (minimumMs: number, defaultMs?: number): JsonSchema => ({
  type: 'integer',
  minimum: minimumMs,
  maximum: 600000,
  ...(defaultMs === undefined ? {} : { default: defaultMs }),
});

/** The shared properties, as `configField.host()` and so on. */
export const configField = { host, port, password, userName, tls, sslMode, connectTimeout };

/** A config object of exactly these properties (an unknown one is refused, not ignored). */
export const configObject = (properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties,
  required: [...required],
  additionalProperties: false,
});
