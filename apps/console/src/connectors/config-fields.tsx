// The inputs of a connector's config, one per field of its type's JSON Schema; secrets are password inputs that show
// the API's `********` until replaced.
import { SECRET_MASK, type ConfigField } from './config-schema.js';

interface ConfigFieldsProps {
  fields: readonly ConfigField[];
  values: Record<string, string>;
  errors: Record<string, string>;
  onChange: (name: string, value: string) => void;
}

export function ConfigFields({ fields, values, errors, onChange }: ConfigFieldsProps) {
  if (fields.length === 0) return <p className="muted">This type needs no settings.</p>;
  return (
    <fieldset className="config-fields">
      <legend>Settings</legend>
      {fields.map((field) => (
        <FieldInput
          key={field.name}
          field={field}
          value={values[field.name] ?? ''}
          error={errors[field.name]}
          onChange={(value) => onChange(field.name, value)}
        />
      ))}
    </fieldset>
  );
}

function FieldInput({
  field,
  value,
  error,
  onChange,
}: {
  field: ConfigField;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}) {
  const id = `config-${field.name}`;
  const help = [
    field.description,
    field.defaultValue !== undefined ? `Default ${JSON.stringify(field.defaultValue)}.` : '',
    field.kind === 'secret' ? `A stored secret shows as ${SECRET_MASK}; leave it so to keep it.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const describedBy = [help && `${id}-help`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  const common = { id, name: field.name, 'aria-invalid': error !== undefined, 'aria-describedby': describedBy };
  const label = `${field.name}${field.required ? ' (required)' : ''}`;

  if (field.kind === 'boolean')
    return (
      <div className="field field-check">
        <input
          {...common}
          type="checkbox"
          checked={value === 'true'}
          onChange={(e) => onChange(String(e.target.checked))}
        />
        <label htmlFor={id}>{field.name}</label>
        {help && <Help id={`${id}-help`} text={help} />}
      </div>
    );

  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {field.kind === 'enum' ? (
        <select {...common} value={value} onChange={(e) => onChange(e.target.value)} required={field.required}>
          <option value="">{field.required ? 'Choose…' : '(default)'}</option>
          {field.options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      ) : field.kind === 'json' ? (
        <textarea {...common} rows={3} spellCheck={false} value={value} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input
          {...common}
          type={field.kind === 'secret' ? 'password' : field.kind === 'text' ? 'text' : 'number'}
          inputMode={field.kind === 'integer' ? 'numeric' : undefined}
          autoComplete={field.kind === 'secret' ? 'new-password' : 'off'}
          spellCheck={false}
          required={field.required}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {help && <Help id={`${id}-help`} text={help} />}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

function Help({ id, text }: { id: string; text: string }) {
  return (
    <p id={id} className="help">
      {text}
    </p>
  );
}
