import type { Connector } from '@conduit/sdk';
import { changedFields, connectorConfigChanges } from './compare.js';

const held = (config: Record<string, unknown>): Connector => ({
  id: 'con_1',
  project_id: null,
  name: 'db',
  type: 'postgres',
  config,
  status: 'ok',
  last_test: null,
  created_at: '2026-11-22T10:15:00.000Z',
  updated_at: '2026-11-22T10:15:00.000Z',
});

describe('connectorConfigChanges', () => {
  it("counts a held secret and the type's defaults as unchanged", () => {
    const stored = held({
      host: 'h',
      port: 5432,
      database: 'd',
      user: 'u',
      password: '********',
      ssl: 'disable',
      schema: 'public',
    });
    expect(
      connectorConfigChanges({ host: 'h', database: 'd', user: 'u', password: 'pw' }, stored, { updateSecrets: false }),
    ).toEqual([]);
    expect(
      connectorConfigChanges({ host: 'h', database: 'd', user: 'u', password: 'pw' }, stored, { updateSecrets: true }),
    ).toEqual(['config.password']);
  });

  it('names changed, added and removed fields', () => {
    const stored = held({ host: 'h', database: 'd', user: 'u', password: '********', schema: 'sales' });
    expect(
      connectorConfigChanges({ host: 'h2', database: 'd', user: 'u', port: 6543 }, stored, { updateSecrets: false }),
    ).toEqual(['config.host', 'config.password', 'config.port', 'config.schema']);
  });
});

describe('changedFields', () => {
  it('compares values as JSON, whatever the key order, with defaults for what is left out', () => {
    expect(
      changedFields(
        { parameters: { a: 1, b: [1, 2] }, timezone: undefined },
        { parameters: { b: [1, 2], a: 1 }, timezone: 'UTC' },
        { timezone: 'UTC' },
      ),
    ).toEqual([]);
    expect(changedFields({ schedule: '0 * * * *' }, { schedule: null })).toEqual(['schedule']);
  });
});
