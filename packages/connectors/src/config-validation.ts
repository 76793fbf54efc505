/**
 * Validates a connector config against its type's JSON Schema, reporting every problem with a request-body path.
 * From the types' metadata alone, no driver: also `@conduit/connectors/config-validation`, for the gateway.
 */
import { compileConfigValidator, type ConfigProblem, type ConfigValidator } from './config-schema-validator.js';
import { connectorTypeInfos, type ConnectorTypeInfo } from './type-infos.js';

export type { ConfigProblem };

const validators = new Map<string, ConfigValidator>();
const infos: ReadonlyMap<string, ConnectorTypeInfo> = new Map(connectorTypeInfos().map((info) => [info.type, info]));

export function validateConnectorConfig(type: string, config: unknown): ConfigProblem[] {
  let validate = validators.get(type);
  if (!validate) {
    const info = infos.get(type);
    if (!info) return [{ path: 'type', code: 'invalid_value', message: `unknown connector type "${type}"` }];
    validate = compileConfigValidator(info.config_schema);
    validators.set(type, validate);
  }
  return validate(config);
}

/**
 * `config` with its type's defaults (the JSON Schema's top-level `default`s) filled in where a field is absent: the
 * settings a connector really uses, as an answer shows them and as a change is judged. An unknown type: as given.
 */
export function configWithDefaults(type: string, config: Record<string, unknown>): Record<string, unknown> {
  const properties = infos.get(type)?.config_schema['properties'] as
    Record<string, { default?: unknown } | undefined> | undefined;
  if (!properties) return config;
  const filled = { ...config };
  for (const [field, schema] of Object.entries(properties))
    if (schema?.default !== undefined && filled[field] === undefined) filled[field] = structuredClone(schema.default);
  return filled;
}
