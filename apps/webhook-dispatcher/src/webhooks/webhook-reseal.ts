import type { DataSource } from 'typeorm';
import { SecretOpenError, type SecretBox } from '@conduit/secrets';
import { resealRows, type ResealOutcome } from '@conduit/service-kit';
import { resealWebhookSecret } from '../security/secret-box.js';

interface WebhookSecretRow {
  id: string;
  tenant_id: string;
  secret_sealed: string;
}

/**
 * Seals every webhook secret that is not sealed as now (`v1:`/`enc:v1:` bound to the webhook id only, or a key in
 * SECRETS_KEYS_PREVIOUS) again under SECRETS_KEY, bound to its tenant and webhook. Runs after the migrations, at start
 * and in the `migrate` command; answers are unchanged (the secret is never answered, the revision stays).
 */
export function resealWebhookSecrets(ds: DataSource, box: SecretBox): Promise<ResealOutcome> {
  return resealRows<WebhookSecretRow>(ds, {
    table: 'webhooks',
    select: (runner, after, limit) =>
      runner.query(
        `SELECT id, tenant_id, secret_sealed FROM webhooks WHERE id > $1 AND secret_sealed NOT LIKE $2 ORDER BY id LIMIT $3`,
        [after, `enc:v2:${box.currentKeyId}:%`, limit],
      ) as Promise<WebhookSecretRow[]>,
    reseal: (row) => {
      try {
        const sealed = resealWebhookSecret(box, row.tenant_id, row.id, row.secret_sealed);
        return sealed === undefined
          ? { resealed: 0, unreadable: 0 }
          : { next: { ...row, secret_sealed: sealed }, resealed: 1, unreadable: 0 };
      } catch (err) {
        if (!(err instanceof SecretOpenError)) throw err;
        return { resealed: 0, unreadable: 1 };
      }
    },
    write: async (runner, row, next) => {
      const [, affected] = (await runner.query(
        `UPDATE webhooks SET secret_sealed = $1 WHERE id = $2 AND secret_sealed = $3`,
        [next.secret_sealed, row.id, row.secret_sealed],
      )) as [unknown, number];
      return affected === 1;
    },
  });
}
