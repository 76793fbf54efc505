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

describe('http headers', () => {
  const base = { base_url: 'https://api.example.com' };
  const paths = (config: Record<string, unknown>) => validateConnectorConfig('http', config).map((p) => p.path);

  it('takes field names and values as HTTP allows them', () => {
    expect(paths({ ...base, headers: { 'X-Team': 'data', Accept: 'application/json' } })).toEqual([]);
    expect(paths({ ...base, auth_type: 'header', auth_header_name: 'X-Api-Key', auth_header_value: 'k' })).toEqual([]);
  });

  it('refuses a line break or NUL in a name or value, and the headers that frame the request, at save', () => {
    expect(
      paths({ ...base, auth_type: 'header', auth_header_name: 'X-Api-Key\r\nX-Evil: 1', auth_header_value: 'k' }),
    ).toEqual(['config.auth_header_name']);
    expect(
      paths({ ...base, auth_type: 'header', auth_header_name: 'X-Api-Key', auth_header_value: 'k\r\nX-Evil: 1' }),
    ).toEqual(['config.auth_header_value']);
    expect(paths({ ...base, headers: { 'X-Ok': 'a\nb' } })).toEqual(['config.headers.X-Ok']);
    expect(paths({ ...base, auth_type: 'bearer', bearer_token: 't\r\nX-Evil: 1' })).toEqual(['config.bearer_token']);
    for (const name of ['Host', 'content-length', 'Transfer-Encoding', 'Connection', 'Proxy-Authorization', 'X Y', ''])
      expect(paths({ ...base, headers: { [name]: 'x' } })).not.toEqual([]);
    // Never the secret's value in the problem.
    const problems = validateConnectorConfig('http', { ...base, auth_header_value: 'hunter2\n' });
    expect(JSON.stringify(problems)).not.toContain('hunter2');
  });
});
