/** Validates a connector config against its type's schema before a driver uses it (defaults are the driver's). */
import { compileConfigValidator, type ConfigValidator } from './config-schema-validator.js';
import { ConnectorError } from './connector-error.js';
import type { ConnectorTypeInfo, TestResult } from './types.js';

const validators = new WeakMap<ConnectorTypeInfo, ConfigValidator>();

/** Throws a config_error ConnectorError naming every problem. */
export function assertValidConfig(info: ConnectorTypeInfo, config: Record<string, unknown>): void {
  let validate = validators.get(info);
  if (!validate) {
    validate = compileConfigValidator(info.config_schema);
    validators.set(info, validate);
  }
  const problems = validate(config);
  if (problems.length > 0) {
    const list = problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    throw new ConnectorError(`invalid ${info.type} config: ${list}`, 'config_error');
  }
}

/** A failed Test Connection result for a config that does not even parse. */
export function invalidConfigResult(err: unknown): TestResult {
  const known = err instanceof ConnectorError;
  return {
    ok: false,
    latency_ms: 0,
    message: known ? err.message : String(err),
    error_class: known ? err.errorClass : 'config_error',
    checks: [],
    details: {},
    tested_at: new Date().toISOString(),
  };
}
