// A connector type's config JSON Schema read as form fields, and the form's text values turned back into a config.
// Only the shapes the connector types use are read (strings, enums, integers, numbers, booleans, string maps); any
// other field is edited as JSON.

/** What the API answers in place of a stored secret; sent back as is, it keeps the stored value. */
export const SECRET_MASK = '********';

export type FieldKind = 'text' | 'secret' | 'enum' | 'integer' | 'number' | 'boolean' | 'json';

export interface ConfigField {
  name: string;
  kind: FieldKind;
  required: boolean;
  description: string | undefined;
  options: string[];
  defaultValue: unknown;
}

interface PropertySchema {
  type?: unknown;
  enum?: unknown;
  description?: unknown;
  default?: unknown;
  writeOnly?: unknown;
  'x-secret'?: unknown;
}

function kindOf(property: PropertySchema, secret: boolean): FieldKind {
  if (secret) return 'secret';
  if (Array.isArray(property.enum)) return 'enum';
  switch (property.type) {
    case 'string':
      return 'text';
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'json';
  }
}

/** The fields of a config schema, in the schema's order; `secretFields` from the type marks secrets too. */
export function fieldsOf(schema: Record<string, unknown>, secretFields: readonly string[] = []): ConfigField[] {
  const properties = (schema.properties ?? {}) as Record<string, PropertySchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, property]) => {
    const secret = secretFields.includes(name) || property['x-secret'] === true || property.writeOnly === true;
    return {
      name,
      kind: kindOf(property, secret),
      required: required.has(name),
      description: typeof property.description === 'string' ? property.description : undefined,
      options: Array.isArray(property.enum) ? property.enum.map(String) : [],
      defaultValue: property.default,
    };
  });
}

/** The form's text for each field of a config (an existing connector's, secrets masked; or {} for a new one). */
export function formValuesOf(fields: readonly ConfigField[], config: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of fields) {
    const value = config[field.name];
    if (value === undefined || value === null) values[field.name] = field.kind === 'boolean' ? 'false' : '';
    else if (typeof value === 'string') values[field.name] = value;
    // Numbers and booleans read as they are typed; objects (string maps) as indented JSON.
    else values[field.name] = JSON.stringify(value, null, 2);
  }
  return values;
}

export interface ConfigResult {
  config: Record<string, unknown>;
  /** Field name -> what is wrong with its text. */
  errors: Record<string, string>;
}

/** The config the form's text says: empty fields are left out (the type's defaults apply), numbers and JSON parsed. */
export function configOf(fields: readonly ConfigField[], values: Record<string, string>): ConfigResult {
  const config: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const text = (values[field.name] ?? '').trim();
    if (field.kind === 'boolean') {
      config[field.name] = text === 'true';
      continue;
    }
    if (text === '') {
      if (field.required) errors[field.name] = 'Required.';
      continue;
    }
    if (field.kind === 'integer' || field.kind === 'number') {
      const number = Number(text);
      if (!Number.isFinite(number) || (field.kind === 'integer' && !Number.isInteger(number)))
        errors[field.name] = field.kind === 'integer' ? 'A whole number.' : 'A number.';
      else config[field.name] = number;
    } else if (field.kind === 'json') {
      try {
        config[field.name] = JSON.parse(text) as unknown;
      } catch {
        errors[field.name] = 'Valid JSON, e.g. {"X-Team": "data"}.';
      }
    } else config[field.name] = field.kind === 'secret' ? values[field.name] : text;
  }
  return { config, errors };
}
