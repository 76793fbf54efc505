/** Compiles connector config schemas (JSON Schema 2020-12) with ajv and turns its errors into request-body problems. */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import type { JsonSchema } from './types.js';

export interface ConfigProblem {
  /** Relative to the request body, e.g. `config.port`. */
  path: string;
  code: 'invalid_type' | 'required' | 'unknown_field' | 'out_of_range' | 'invalid_value';
  message: string;
}

export type ConfigValidator = (config: unknown) => ConfigProblem[];

const ajv = new Ajv2020({ allErrors: true, strict: true });
// Annotation only: marks a property whose value is a secret.
ajv.addKeyword({ keyword: 'x-secret', schemaType: 'boolean' });

/** Every problem at once; no additional properties at the top level, whatever the schema says. */
export function compileConfigValidator(schema: JsonSchema): ConfigValidator {
  const validate = ajv.compile({ ...schema, additionalProperties: false });
  return (config) => (validate(config) ? [] : (validate.errors ?? []).map(toProblem));
}

const RANGE_KEYWORDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);

function toProblem(error: ErrorObject): ConfigProblem {
  const base = pathFromPointer(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const field = String(params['missingProperty']);
      return { path: `${base}.${field}`, code: 'required', message: `${field} is required` };
    }
    case 'additionalProperties': {
      const field = String(params['additionalProperty']);
      return { path: `${base}.${field}`, code: 'unknown_field', message: `${field} is not a known field` };
    }
    case 'type':
      return { path: base, code: 'invalid_type', message: `must be ${String(params['type'])}` };
    case 'enum': {
      const allowed = (params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      return { path: base, code: 'invalid_value', message: `must be one of ${allowed}` };
    }
    default:
      return {
        path: base,
        code: RANGE_KEYWORDS.has(error.keyword) ? 'out_of_range' : 'invalid_value',
        message: error.message ?? 'is invalid',
      };
  }
}

/** `/headers/0/name` -> `config.headers[0].name` */
function pathFromPointer(pointer: string): string {
  let path = 'config';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`;
  }
  return path;
}
