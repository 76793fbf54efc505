import type { DataSource } from 'typeorm';
import { resealRows, type ResealOutcome } from '@conduit/service-kit';
import { getDriver } from '@conduit/connectors';
import type { ConnectorSecrets } from './connector-secrets.js';

interface ConnectorRow {
  id: string;
  tenant_id: string;
  type: string;
  config: Record<string, unknown>;
}

/**
 * Seals every connector secret that is not sealed as now (`enc:v1:` bound to its field only, or a key in
 * SECRETS_KEYS_PREVIOUS) again under SECRETS_KEY, bound to its tenant, connector and field. Runs after the migrations,
 * at start and in the `migrate` command; answers are unchanged (no revision bump: the masked config is the same).
 */
export function resealConnectorSecrets(ds: DataSource, secrets: ConnectorSecrets): Promise<ResealOutcome> {
  const current = `enc:v2:${secrets.currentKeyId}:%`;
  return resealRows<ConnectorRow>(ds, {
    table: 'connectors',
    // Rows with a top-level string that is sealed but not under the current key; the secret fields are told apart below.
    select: (runner, after, limit) =>
      runner.query(
        `SELECT id, tenant_id, type, config FROM connectors c
          WHERE id > $1 AND EXISTS (
            SELECT 1 FROM jsonb_each_text(c.config) f
             WHERE jsonb_typeof(c.config -> f.key) = 'string' AND (f.value LIKE 'enc:%' OR f.value LIKE 'v1:%') AND f.value NOT LIKE $2)
          ORDER BY id LIMIT $3`,
        [after, current, limit],
      ) as Promise<ConnectorRow[]>,
    reseal: (row) => {
      // A type without a driver any more has no known secret fields: left as it is.
      if (!getDriver(row.type)) return { resealed: 0, unreadable: 0 };
      const { config, resealed, unreadable } = secrets.reseal(row.type, row.config, {
        tenantId: row.tenant_id,
        connectorId: row.id,
      });
      return {
        ...(resealed.length > 0 ? { next: { ...row, config } } : {}),
        resealed: resealed.length,
        unreadable: unreadable.length,
      };
    },
    write: async (runner, row, next) => {
      const [, affected] = (await runner.query(
        `UPDATE connectors SET config = $1::jsonb WHERE id = $2 AND config = $3::jsonb`,
        [JSON.stringify(next.config), row.id, JSON.stringify(row.config)],
      )) as [unknown, number];
      return affected === 1;
    },
  });
}
