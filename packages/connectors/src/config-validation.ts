/** Validates a connector config against its type's JSON Schema, reporting every problem with a request-body path. */
import { compileConfigValidator, type ConfigProblem, type ConfigValidator } from './config-schema-validator.js';
import { getDriver } from './registry.js';

export type { ConfigProblem };

const validators = new Map<string, ConfigValidator>();

export function validateConnectorConfig(type: string, config: unknown): ConfigProblem[] {
  let validate = validators.get(type);
  if (!validate) {
    const driver = getDriver(type);
    if (!driver) return [{ path: 'type', code: 'invalid_value', message: `unknown connector type "${type}"` }];
    validate = compileConfigValidator(driver.info.config_schema);
    validators.set(type, validate);
  }
  return validate(config);
}
