import { Tagged, type Connector } from '@conduit/contracts';
import { configWithDefaults } from '@conduit/connectors';
import { etagOf } from '@conduit/service-kit';
import type { ConnectorEntity } from './connector.entity.js';
import type { ConnectorSecrets } from './connector-secrets.js';

/** The answer for a stored connector: its type's defaults filled in, its secrets masked. */
export function toConnector(row: ConnectorEntity, secrets: ConnectorSecrets): Connector {
  return {
    id: row.id,
    project_id: row.projectId,
    name: row.name,
    type: row.type,
    config: secrets.mask(row.type, configWithDefaults(row.type, row.config)),
    status: row.status,
    last_test: row.lastTest,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function taggedConnector(row: ConnectorEntity, secrets: ConnectorSecrets): Tagged<Connector> {
  return new Tagged(toConnector(row, secrets), etagOf(row.id, row.revision, row.updatedAt.toISOString()));
}
