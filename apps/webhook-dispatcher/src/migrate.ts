import 'reflect-metadata';
import { logReseal, runMigrateCommand } from '@conduit/service-kit';
import { SecretBox, secretKeysOf } from '@conduit/secrets';
import { bootConfig } from './boot-config.js';
import { createDispatcherDataSource } from './database/dispatcher-data-source.js';
import { resealWebhookSecrets } from './webhooks/webhook-reseal.js';

/**
 * The `migrate` command: applies pending migrations of the webhooks schema, seals stored secrets again under the
 * current key (docs/security.md, rotation) and exits.
 */
runMigrateCommand('webhook-dispatcher', () => {
  const config = bootConfig();
  return {
    logLevel: config.LOG_LEVEL,
    dataSource: (logger) =>
      createDispatcherDataSource({ url: config.DATABASE_URL, schema: config.WEBHOOK_DB_SCHEMA, poolSize: 1, logger }),
    afterMigrations: async (dataSource, logger) =>
      logReseal(logger, await resealWebhookSecrets(dataSource, new SecretBox(secretKeysOf(config)))),
  };
});
