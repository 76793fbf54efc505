/**
 * The secret config fields of each connector type, in one place: the connector drivers declare their type info's
 * `secret_fields` from here, and the gateway seals these fields before a config crosses to the catalog.
 * Every field is a top-level string property of the config.
 */
export const CONNECTOR_SECRET_FIELDS = {
  amqp: ['password'],
  duckdb: [],
  file: [],
  http: ['auth_header_value', 'bearer_token', 'password'],
  mqtt: ['password'],
  mysql: ['password'],
  nats: ['password', 'token'],
  openai: ['api_key'],
  postgres: ['password'],
  redis: ['password'],
  s3: ['secret_access_key'],
} as const satisfies Record<string, readonly string[]>;

/** What a secret field is answered as, and what an update sends to keep the stored value. */
export const SECRET_MASK = '********';

export type KnownConnectorType = keyof typeof CONNECTOR_SECRET_FIELDS;

/**
 * Every field name that is a secret in some type. A PUT need not name its type, so what crosses the wire is sealed
 * by name: a field that is a secret anywhere travels sealed, and the catalog opens the same set.
 */
export const ANY_CONNECTOR_SECRET_FIELD: readonly string[] = [
  ...new Set(Object.values(CONNECTOR_SECRET_FIELDS).flat()),
].sort();
