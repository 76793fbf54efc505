import { connectorTypes, getDriver } from './registry.js';
import { validateConnectorConfig } from './config-validation.js';

describe('connector types', () => {
  it('lists postgres with its secret field marked in the schema', () => {
    const types = connectorTypes();
    expect(types.map((t) => t.type)).toEqual([...types.map((t) => t.type)].sort());
    const pg = types.find((t) => t.type === 'postgres');
    expect(pg).toMatchObject({ category: 'database', roles: ['source', 'sink', 'sql'], secret_fields: ['password'] });
    const props = pg?.config_schema['properties'] as Record<string, Record<string, unknown>>;
    expect(props['password']).toMatchObject({ writeOnly: true, 'x-secret': true });
    expect(getDriver('postgres')?.info).toBe(pg);
    expect(getDriver('nope')).toBeUndefined();
  });
});

describe('validateConnectorConfig', () => {
  const valid = { host: 'db.example.com', database: 'app', user: 'etl' };

  it('accepts a minimal and a full config', () => {
    expect(validateConnectorConfig('postgres', valid)).toEqual([]);
    expect(
      validateConnectorConfig('postgres', {
        ...valid,
        port: 6543,
        password: 'x',
        ssl: 'verify-full',
        schema: 'raw',
        connect_timeout_ms: 5000,
      }),
    ).toEqual([]);
  });

  it('reports every problem with its body path and code', () => {
    const problems = validateConnectorConfig('postgres', {
      host: 42,
      port: 70000,
      ssl: 'sometimes',
      schema: '',
      colour: 'blue',
    });
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p.code]));
    expect(byPath).toEqual({
      'config.host': 'invalid_type',
      'config.port': 'out_of_range',
      'config.ssl': 'invalid_value',
      'config.schema': 'invalid_value',
      'config.colour': 'unknown_field',
      'config.database': 'required',
      'config.user': 'required',
    });
    for (const p of problems) expect(p.message.length).toBeGreaterThan(0);
  });

  it('flags a non-integer port as invalid_type and a non-object config at the root', () => {
    expect(validateConnectorConfig('postgres', { ...valid, port: 54.5 })).toEqual([
      { path: 'config.port', code: 'invalid_type', message: 'must be integer' },
    ]);
    expect(validateConnectorConfig('postgres', 'host=db')).toEqual([
      { path: 'config', code: 'invalid_type', message: 'must be object' },
    ]);
  });

  it('reports an unknown type', () => {
    expect(validateConnectorConfig('oracle', valid)).toEqual([
      { path: 'type', code: 'invalid_value', message: 'unknown connector type "oracle"' },
    ]);
  });
});
